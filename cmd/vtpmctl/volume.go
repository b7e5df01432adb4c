package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/nova"
	predictsvc "github.com/vtpmctl/vtpmctl/predict"
	"github.com/vtpmctl/vtpmctl/tagging"
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
	return &cli.Command{
		Name:  "volume",
		Usage: "tag bootable volumes for a vTPM (and the Windows-ready profile): set, unset, show, list",
		Description: commandHelp(`
A server booted from an existing volume (or a snapshot of it) gets its image
properties from the volume's image metadata (volume_image_metadata), not from
Glance: Cinder copied the image's properties when the volume was created, so
tagging the image later does not reach the volume. These commands read and
write that metadata through Cinder (os-set_image_metadata,
os-unset_image_metadata), computing the change first and writing only what
differs, so rerunning a command writes nothing.`, []string{
			"vtpmctl volume set win11-boot --windows",
			"vtpmctl volume set --select image_id=6f1c0d2e-… --tpm-version 2.0 --tpm-model tpm-crb --dry-run",
			"vtpmctl volume unset win11-boot --windows",
			"vtpmctl volume list --vtpm",
		}, ""),
		Action: groupAction,
		Commands: []*cli.Command{
			newVolumeChangeCommand(g, streams, true),
			newVolumeChangeCommand(g, streams, false),
			newVolumeShowCommand(g, streams),
			newVolumeListCommand(g, streams),
		},
	}
}

func newVolumeChangeCommand(g *globalOptions, streams *IOStreams, set bool) *cli.Command {
	o := &volumeChangeOptions{IO: streams, Global: g, propertyChange: propertyChange{Set: set}}
	flags := []cli.Flag{
		&cli.StringSliceFlag{Name: "select", Usage: "also act on every bootable volume whose image metadata has `KEY=VALUE` (repeatable; all must match), e.g. image_id=ID", Destination: &o.Select},
		&cli.BoolFlag{Name: "dry-run", Usage: "print the changes, write nothing", Destination: &o.DryRun},
		&cli.BoolFlag{Name: "all-projects", Usage: "find volumes by name and --select in every project (admin)", Destination: &o.AllProjects},
	}
	c := &cli.Command{Name: "unset", ArgsUsage: "[VOLUME…]", Usage: "remove hw_tpm_* (and with --windows the profile's keys) from volumes' image metadata"}
	if set {
		c = &cli.Command{Name: "set", ArgsUsage: "[VOLUME…]", Usage: "set hw_tpm_version/hw_tpm_model (or the whole Windows-ready profile) in volumes' image metadata"}
		flags = append(flags, o.setFlags()...)
		c.Description = commandHelp(`
VOLUME is a name or an ID; an ambiguous name is an error listing the
candidates. Nothing is written when any volume is unknown, or when the result
would be image metadata Nova refuses (CRB with TPM 1.2). --windows writes the
same profile as image set --windows. --select matches bootable volumes only
(image_id=ID: the volumes created from that image).

A server already running from the volume keeps what Nova copied at its boot;
the change applies to servers booted from the volume afterwards.

Warnings name every flavor with hw:tpm_* that, with the changed volume, would
put a server in ERROR at boot (for a volume Nova's fault is only
"NotImplementedError": see vtpmctl check --volume).`, []string{
			"vtpmctl volume set win11-boot --windows",
			"vtpmctl volume set --select image_id=6f1c0d2e-… --windows --dry-run -f json",
			"vtpmctl volume set --all-projects --select os_distro=windows --tpm-version 2.0 --tpm-model tpm-crb",
		}, `EXIT STATUS:
   0  every volume has the requested properties (written now or already)
   1  some volume could not be changed (e.g. Cinder 403: another project's volume)
   2  usage error, unknown or ambiguous volume, or a request Nova would refuse`)
	} else {
		flags = append(flags, o.unsetFlags()...)
		c.Description = commandHelp(`
Removes hw_tpm_version, hw_tpm_model (and a stray hw_tpm_secret_security) from
the volumes' image metadata, one Cinder request per key. With --windows also
hw_firmware_type, hw_machine_type, os_secure_boot, os_type and os_distro where
they still hold the value the profile sets.`, []string{
			"vtpmctl volume unset win11-test",
			"vtpmctl volume unset --select os_distro=windows --windows --dry-run",
		}, "")
	}
	c.Flags = flags
	c.Action = func(ctx context.Context, cmd *cli.Command) error {
		o.Volumes = cmd.Args().Slice()
		return runVolumeChange(ctx, o)
	}
	return c
}

func runVolumeChange(ctx context.Context, o *volumeChangeOptions) error {
	req, selector, err := o.request("volume", "VOLUME", o.Volumes)
	if err != nil {
		return err
	}
	sess, err := o.Global.connect(ctx)
	if err != nil {
		return err
	}
	res, err := tagging.Volumes(ctx, sess, tagging.VolumesRequest{Volumes: o.Volumes, Selector: selector, AllProjects: o.AllProjects,
		Set: o.Set, Change: req, DryRun: o.DryRun,
		Release:  nova.ReleaseEvidence{Flag: o.Release, FlagName: "--nova-release"},
		Progress: func(ctx context.Context) context.Context { return withProgress(ctx, o.IO.Err, "writing volumes") }})
	if errors.Is(err, tagging.ErrNoVolume) {
		return usagef("no bootable volume matches --select %v", o.Select)
	}
	if err != nil {
		return err
	}
	if o.Set {
		warnVolumeConflicts(o.IO, res)
	}
	return printChanges(o.IO, o.Global, res.Plans, o.DryRun)
}

// warnVolumeConflicts words the flavors that would put a server booted
// from a changed volume in ERROR. Advice only: not having it is a warning.
func warnVolumeConflicts(streams *IOStreams, res tagging.VolumesResult) {
	if w := res.Release.Warning(nil); w != "" {
		warn(streams, "%s", w)
	}
	if res.ConflictsErr != nil {
		warn(streams, "flavors not checked for conflicts: %v", res.ConflictsErr)
		return
	}
	var ws []string
	for _, c := range res.Conflicts {
		ws = append(ws, fmt.Sprintf("volume %s with flavor %s would end in ERROR: %s", c.Volume, c.Flavor, volumeRefusal(c.Decision)))
	}
	warnAll(streams, ws)
}

// volumeRefusal is Nova's fault, and for the conflict Nova cannot word
// for a volume, what it meant.
func volumeRefusal(d nova.Decision) string {
	if d.Error.Exception == "NotImplementedError" && len(d.Notes) > 0 {
		return d.Error.Message + " (" + d.Notes[len(d.Notes)-1] + ")"
	}
	return d.Error.Message
}

func newVolumeShowCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	var rel nova.Release
	var all bool
	return &cli.Command{
		Flags: []cli.Flag{releaseFlag("nova-release", &rel, "Nova `RELEASE` whose rules apply", ""),
			&cli.BoolFlag{Name: "all-projects", Usage: "find the volume by name in every project (admin)", Destination: &all}},
		Name: "show", ArgsUsage: "VOLUME", Usage: "a volume's vTPM image metadata, Windows profile state and what Nova makes of it",
		Description: commandHelp(`Shows the vTPM and Windows-profile keys of one volume's image metadata and
what Nova would give a server booted from it with a flavor without hw:tpm_*.`,
			[]string{"vtpmctl volume show win11-boot", "vtpmctl volume show 0c6a… -f json"}, ""),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() != 1 {
				return usagef("volume show: exactly one VOLUME, got %d (see vtpmctl volume show --help)", cmd.Args().Len())
			}
			sess, err := g.connect(ctx)
			if err != nil {
				return err
			}
			shown, err := predictsvc.ShowVolume(ctx, sess, predictsvc.ShowRequest{Ref: cmd.Args().First(), AllProjects: all,
				Release: nova.ReleaseEvidence{Flag: rel, FlagName: "--nova-release"}})
			if err != nil {
				return err
			}
			warnRelease(streams, shown.Release)
			v, res := shown.Volumes[0], shown.Release
			d := nova.DecideVolume(nova.Flavor{Name: "(flavor without hw:tpm_*)"}, v.Boot(), res.Release)
			s := nova.SummarizeImage(nova.VolumeBootProperties(v.ImageMetadata))
			attached := []string{}
			for _, a := range v.Attachments {
				attached = append(attached, a.ServerID+" "+a.Device)
			}
			return output.Write(streams.Out, g.Output, output.Record{
				{Name: "id", Value: v.ID}, {Name: "name", Value: v.Name}, {Name: "project", Value: v.ProjectID},
				{Name: "status", Value: v.Status}, {Name: "bootable", Value: bool(v.Bootable)},
				{Name: "image_id", Value: v.ImageMetadata["image_id"]},
				{Name: "hw_tpm_version", Value: s.TPMVersion}, {Name: "hw_tpm_model", Value: s.TPMModel},
				{Name: "vtpm", Value: vtpmText(d)}, {Name: "windows_profile", Value: s.WindowsProfile},
				{Name: "attachments", Value: attached},
				{Name: "image_metadata", Value: v.ImageMetadata}, {Name: "nova_release", Value: res.Release.Long()},
			})
		},
	}
}

// vtpmText is a decision in one cell: none, "2.0 tpm-crb", or the refusal.
func vtpmText(d nova.Decision) string {
	switch {
	case d.Error != nil:
		return "refused: " + d.Error.Message
	case d.VTPM:
		return d.Version + " " + d.Model
	}
	return "none"
}

var volumeListColumns = []string{"id", "name", "status", "hw_tpm_version", "hw_tpm_model", "vtpm", "windows_profile", "image_id", "project"}

func newVolumeListCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	var vtpm, noVTPM, all bool
	var rel nova.Release
	var props []string
	return &cli.Command{
		Name: "list", Usage: "bootable volumes with their vTPM image metadata and what Nova makes of it",
		Description: commandHelp(`Lists every bootable volume the caller can see (one Cinder list, all pages)
with the vTPM Nova gives a server booted from it with a flavor without
hw:tpm_*. --property keeps volumes whose image metadata has KEY=VALUE;
--vtpm / --no-vtpm keep volumes that do / do not get a vTPM that way.`,
			[]string{"vtpmctl volume list --vtpm", "vtpmctl volume list --property image_id=6f1c0d2e-… --no-vtpm -f value -c id",
				"vtpmctl volume list --all-projects -f json"}, ""),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "vtpm", Usage: "only volumes that give a vTPM", Destination: &vtpm},
			&cli.BoolFlag{Name: "no-vtpm", Usage: "only volumes that do not", Destination: &noVTPM},
			&cli.StringSliceFlag{Name: "property", Usage: "only volumes whose image metadata has `KEY=VALUE` (repeatable)", Destination: &props},
			&cli.BoolFlag{Name: "all-projects", Usage: "every project's volumes (admin)", Destination: &all},
			releaseFlag("nova-release", &rel, "Nova `RELEASE` whose rules apply", ""),
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := noArgs(cmd); err != nil {
				return err
			}
			if vtpm && noVTPM {
				return usagef("volume list: --vtpm and --no-vtpm exclude each other")
			}
			filter, err := nova.ParseKeyValues(props)
			if err != nil {
				return usagef("--property: %w", err)
			}
			sess, err := g.connect(ctx)
			if err != nil {
				return err
			}
			shown, err := predictsvc.ListVolumes(ctx, sess, predictsvc.ListRequest{AllProjects: all, Properties: filter,
				Release: nova.ReleaseEvidence{Flag: rel, FlagName: "--nova-release"}})
			if err != nil {
				return err
			}
			warnRelease(streams, shown.Release)
			res := shown.Release
			var recs []output.Record
			for _, v := range shown.Volumes {
				d := nova.DecideVolume(nova.Flavor{Name: "(flavor without hw:tpm_*)"}, v.Boot(), res.Release)
				if (vtpm && !d.VTPM) || (noVTPM && d.VTPM) {
					continue
				}
				s := nova.SummarizeImage(nova.VolumeBootProperties(v.ImageMetadata))
				recs = append(recs, output.Record{{Name: "id", Value: v.ID}, {Name: "name", Value: v.Name}, {Name: "status", Value: v.Status},
					{Name: "hw_tpm_version", Value: s.TPMVersion}, {Name: "hw_tpm_model", Value: s.TPMModel},
					{Name: "vtpm", Value: vtpmText(d)}, {Name: "windows_profile", Value: s.WindowsProfile},
					{Name: "image_id", Value: v.ImageMetadata["image_id"]}, {Name: "project", Value: v.ProjectID}})
			}
			return output.Write(streams.Out, g.Output, output.List{Columns: volumeListColumns, Rows: recs})
		},
	}
}
