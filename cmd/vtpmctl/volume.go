package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/app/volume"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/output"
)

// volumeChangeOptions mirror imageChangeOptions: a server booted from an
// existing volume gets its image properties from the volume's
// volume_image_metadata, never from Glance, so that is what is tagged.
type volumeChangeOptions struct {
	IO     *IOStreams
	Global *globalOptions

	propertyChange
	Volumes     []string
	AllProjects bool
}

func newVolumeCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	return propsGroup("volume", helpText{usage: "tag bootable volumes for a vTPM (and the Windows-ready profile): set, unset, show, list",
		about: `
A server booted from an existing volume (or a snapshot of it) gets its image
properties from the volume's image metadata (volume_image_metadata), not from
Glance: Cinder copied the image's properties when the volume was created, so
tagging the image later does not reach the volume. These commands read and
write that metadata through Cinder (os-set_image_metadata,
os-unset_image_metadata), computing the change first and writing only what
differs, so rerunning a command writes nothing.`, examples: []string{
			"vtpmctl volume set win11-boot --windows",
			"vtpmctl volume set --select image_id=6f1c0d2e-8a41-4c3e-9b7d-2f5e1a0c9d13 --tpm-version 2.0 --tpm-model tpm-crb --dry-run",
			"vtpmctl volume unset win11-boot --windows",
			"vtpmctl volume list --vtpm",
		}},
		newVolumeChangeCommand(g, streams, true),
		newVolumeChangeCommand(g, streams, false),
		newVolumeShowCommand(g, streams),
		newVolumeListCommand(g, streams))
}

var volumeSetHelp = helpText{usage: "set hw_tpm_version/hw_tpm_model (or the whole Windows-ready profile) in volumes' image metadata",
	about: `
VOLUME is a name or an ID; an ambiguous name is an error listing the
candidates. Nothing is written when any volume is unknown, or when the result
would be image metadata Nova refuses (CRB with TPM 1.2), or when a volume named
is not bootable (a data volume: Nova boots no server from it). --windows
writes the same profile as image set --windows. --select matches bootable
volumes only (image_id=ID: the volumes created from that image). --select or
several volumes are a bulk write: --yes writes, a terminal is shown the
changes and asked, and without one it is refused before any cloud is asked.

A server already running from the volume keeps what Nova copied at its boot;
the change applies to servers booted from the volume afterwards.

Warnings name every flavor with hw:tpm_* that, with the changed volume, would
put a server in ERROR at boot (for a volume Nova's fault is only
"NotImplementedError": see vtpmctl check --volume), and every key a volume's
image metadata keeps that Nova does not read but that stands for a vTPM key
(hw_tpm_verion); -f json lists those in near_misses.`, examples: []string{
		"vtpmctl volume set win11-boot --windows",
		"vtpmctl volume set --select image_id=6f1c0d2e-8a41-4c3e-9b7d-2f5e1a0c9d13 --windows --dry-run -f json",
		"vtpmctl volume set --all-projects --select os_distro=windows --tpm-version 2.0 --tpm-model tpm-crb --yes",
	}, exit: `EXIT STATUS:
   0  every volume has the requested properties (written now or already)
   1  some volume could not be changed (e.g. Cinder 403: another project's volume)
   2  usage error, unknown, ambiguous or not bootable volume, or a request Nova would refuse`}

var volumeUnsetHelp = helpText{usage: "remove hw_tpm_* (and with --windows the profile's keys) from volumes' image metadata",
	about: `
Removes hw_tpm_version, hw_tpm_model (and a stray hw_tpm_secret_security) from
the volumes' image metadata, one Cinder request per key. With --windows also
hw_firmware_type, hw_machine_type, os_secure_boot, os_type and os_distro where
they still hold the value the profile sets.`, examples: []string{
		"vtpmctl volume unset win11-test",
		"vtpmctl volume unset --select os_distro=windows --windows --dry-run",
	}}

func newVolumeChangeCommand(g *globalOptions, streams *IOStreams, set bool) *cli.Command {
	o := &volumeChangeOptions{IO: streams, Global: g, propertyChange: propertyChange{Set: set}}
	return withResult(o.command("VOLUME", "also act on every bootable volume whose image metadata has `KEY=VALUE` (repeatable; all must match), e.g. image_id=ID",
		[]cli.Flag{&cli.BoolFlag{Name: "all-projects", Usage: "find volumes by name and --select in every project (admin)", Destination: &o.AllProjects}},
		volumeSetHelp, volumeUnsetHelp,
		func(ctx context.Context, names []string) error {
			o.Volumes = names
			return runVolumeChange(ctx, o)
		}), changesResult)
}

func runVolumeChange(ctx context.Context, o *volumeChangeOptions) error {
	c, err := o.start(ctx, o.Global, o.IO, "volume", "VOLUME", o.Volumes)
	if err != nil {
		return err
	}
	res, err := volume.Tag(ctx, c.sess, volume.TagRequest{Volumes: o.Volumes, Selector: c.selector, AllProjects: o.AllProjects,
		Set: o.Set, Change: c.change, DryRun: o.DryRun, Release: c.release, Progress: c.progress, Confirm: c.confirm})
	if errors.Is(err, volume.ErrNoVolume) {
		return usagef("no bootable volume matches --select %v", o.Select)
	}
	// A data volume named is the wrong volume named: the user's to fix,
	// like an unknown one.
	var notBootable *volume.NotBootableError
	if errors.As(err, &notBootable) {
		return usagef("%w", err)
	}
	if err != nil {
		return err
	}
	if o.Set {
		warnConflicts(o.IO, res.Release, res.ConflictsErr, volumeConflicts(res.Conflicts))
	}
	return printChanges(o.IO, o.Global, res.Plans, o.DryRun)
}

// volumeConflicts words the flavors that would put a server booted from
// a changed volume in ERROR.
func volumeConflicts(cs []volume.Conflict) []string {
	var ws []string
	for _, c := range cs {
		ws = append(ws, fmt.Sprintf("volume %s with flavor %s would end in ERROR: %s", c.Volume, c.Flavor, volumeRefusal(c.Decision)))
	}
	return ws
}

// volumeRefusal is Nova's fault, and for the conflict Nova cannot word
// for a volume, what it meant.
func volumeRefusal(d nova.Decision) string {
	if d.Error.Exception == nova.ExceptionNotImplementedError && len(d.Notes) > 0 {
		return d.Error.Message + " (" + d.Notes[len(d.Notes)-1] + ")"
	}
	return d.Error.Message
}

func newVolumeShowCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	o := &showOptions{IO: streams, Global: g}
	return withResult(o.command("volume", "VOLUME", helpText{usage: "a volume's vTPM image metadata, Windows profile state and what Nova makes of it",
		about: `Shows the vTPM and Windows-profile keys of one volume's image metadata and
what Nova would give a server booted from it with a flavor without hw:tpm_*.`,
		examples: []string{"vtpmctl volume show win11-boot", "vtpmctl volume show 0c6a… -f json"}},
		[]cli.Flag{&cli.BoolFlag{Name: "all-projects", Usage: "find the volume by name in every project (admin)", Destination: &o.AllProjects}},
		func(ctx context.Context, sess *cloud.Session) (output.Recorder, nova.ResolvedRelease, error) {
			shown, err := volume.Show(ctx, sess, volume.ShowRequest{Ref: o.Ref, AllProjects: o.AllProjects, Release: novaRelease(o.Release)})
			return shown, shown.Release, err
		}), prints(volume.Shown{}))
}

func newVolumeListCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	o := &listOptions{IO: streams, Global: g}
	return withResult(o.command("volume", helpText{usage: "bootable volumes with their vTPM image metadata and what Nova makes of it",
		about: `Lists every bootable volume the caller can see (one Cinder list, all pages)
with the vTPM Nova gives a server booted from it with a flavor without
hw:tpm_*. --select keeps volumes whose image metadata has KEY=VALUE;
--vtpm / --no-vtpm keep volumes that do / do not get a vTPM that way.`,
		examples: []string{"vtpmctl volume list --vtpm", "vtpmctl volume list --select image_id=6f1c0d2e-8a41-4c3e-9b7d-2f5e1a0c9d13 --no-vtpm -f value -c id",
			"vtpmctl volume list --all-projects -f json"}},
		append(o.filterFlags("only volumes that give a vTPM", "only volumes that do not", "only volumes whose image metadata has `KEY=VALUE` (repeatable)"),
			&cli.BoolFlag{Name: "all-projects", Usage: "every project's volumes (admin)", Destination: &o.AllProjects},
			releaseFlag("nova-release", &o.Release, "Nova `RELEASE` whose rules apply", "")),
		func(ctx context.Context, sess *cloud.Session) (output.Tabular, error) {
			res, err := volume.List(ctx, sess, volume.ListRequest{AllProjects: o.AllProjects, Properties: o.Properties,
				VTPM: o.filter(), Release: novaRelease(o.Release)})
			if err != nil {
				return nil, err
			}
			warnRelease(o.IO, res.Release)
			return res.Volumes, nil
		}), prints(volume.Listed{}))
}
