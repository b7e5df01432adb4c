package main

import (
	"context"
	"errors"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/app/image"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/quote"
)

type imageChangeOptions struct {
	IO     *IOStreams
	Global *globalOptions

	propertyChange
	Images []string
}

func newImageCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	return propsGroup("image", helpText{usage: "tag images for a vTPM (and the Windows-ready profile): set, unset, show, list",
		about: `
Image properties let a project member give every server built from an image
a vTPM, without operator access. Changes are computed first and only what
differs is written (one JSON-patch request per image), so rerunning a command
writes nothing.`, examples: []string{
			"vtpmctl image set win11-23h2 --windows",
			"vtpmctl image set --select os_distro=windows --tpm-version 2.0 --tpm-model tpm-crb --dry-run",
			"vtpmctl image unset win11-23h2 --windows",
			"vtpmctl image list --vtpm",
		}},
		newImageChangeCommand(g, streams, true),
		newImageChangeCommand(g, streams, false),
		newImageShowCommand(g, streams),
		newImageListCommand(g, streams))
}

var imageSetHelp = helpText{usage: "set hw_tpm_version/hw_tpm_model (or the whole Windows-ready profile) on images",
	about: `
IMAGE is a name or an ID; an ambiguous name is an error listing the candidates.
Nothing is written when any image is unknown, or when the result would be an
image Nova refuses (CRB with TPM 1.2). --select (Glance filters, and every
image it returns is matched again here) or several images are a bulk write:
--yes writes, a terminal is shown the changes and asked, and without one
the command is refused before any cloud is asked.

--windows sets hw_tpm_version=2.0, hw_tpm_model=tpm-crb (or --tpm-model),
hw_firmware_type=uefi, hw_machine_type=q35 (a versioned pc-q35-* is kept),
os_secure_boot=required, os_type=windows, os_distro=windows. It keeps
hw_disk_bus and hw_vif_model unless they cannot work on q35 (ide becomes
sata), says what it changed, and warns on hw_firmware_stateless=true.

Warnings name every flavor with hw:tpm_* that, with the changed image, would
put a server in ERROR at boot (Nova's own message), and every key an image
keeps that Nova does not read but that stands for a vTPM key (hw_tpm_verion:
did you mean hw_tpm_version?); -f json lists those in near_misses.`, examples: []string{
		"vtpmctl image set win11-23h2 --windows",
		"vtpmctl image set win2022 win2025 --tpm-version 2.0 --tpm-model tpm-crb --yes",
		"vtpmctl image set --select os_distro=windows --windows --dry-run -f json",
	}, exit: `EXIT STATUS:
   0  every image has the requested properties (written now or already)
   1  some image could not be changed (e.g. Glance 403: another project's image)
   2  usage error, unknown or ambiguous image, or a request Nova would refuse`}

var imageUnsetHelp = helpText{usage: "remove hw_tpm_* (and with --windows the profile's keys) from images",
	about: `
Removes hw_tpm_version, hw_tpm_model (and a stray hw_tpm_secret_security).
With --windows also hw_firmware_type, hw_machine_type, os_secure_boot, os_type
and os_distro where they still hold the value the profile sets. --select or
several images need --yes (or a confirmation on a terminal).`, examples: []string{
		"vtpmctl image unset win11-test",
		"vtpmctl image unset --select os_distro=windows --windows --dry-run",
		"vtpmctl image unset --select os_distro=windows --windows --yes",
	}}

func newImageChangeCommand(g *globalOptions, streams *IOStreams, set bool) *cli.Command {
	o := &imageChangeOptions{IO: streams, Global: g, propertyChange: propertyChange{Set: set}}
	return withResult(o.command("IMAGE", "also act on every image with property `KEY=VALUE` (repeatable; all must match)", nil, imageSetHelp, imageUnsetHelp,
		func(ctx context.Context, names []string) error {
			o.Images = names
			return runImageChange(ctx, o)
		}), changesResult)
}

func runImageChange(ctx context.Context, o *imageChangeOptions) error {
	c, err := o.start(ctx, o.Global, o.IO, "image", "IMAGE", o.Images)
	if err != nil {
		return err
	}
	res, err := image.Tag(ctx, c.sess, image.TagRequest{Images: o.Images, Selector: c.selector, Set: o.Set, Change: c.change, DryRun: o.DryRun,
		Release: c.release, Progress: c.progress, Confirm: c.confirm})
	if errors.Is(err, image.ErrNoImage) {
		return usagef("no image matches --select %v", o.Select)
	}
	if res.Mismatched > 0 {
		warn(o.IO, "Glance returned %d image(s) for --select %s that do not match it (a filter it ignored?): left out", res.Mismatched, strings.Join(o.Select, " "))
	}
	if err != nil {
		return err
	}
	if o.Set {
		warnConflicts(o.IO, res.Release, res.ConflictsErr, res.Conflicts)
	}
	err = printChanges(o.IO, o.Global, res.Plans, o.DryRun)
	if res.StaleErr != nil {
		warn(o.IO, "volumes created from the changed images not checked: %v", res.StaleErr)
	}
	// Cinder copied the image's properties when it created each volume,
	// and Nova reads that copy for a server booted from the volume.
	for _, s := range res.Stale {
		say(o.IO.Err, "vtpmctl: %s: %d bootable volume(s) created from this image before do not carry the change (a server booted from a volume gets the volume's copy of the image properties); to change them too: %s",
			s.Image, s.Count, volumeFixCommand(o, s.ImageID, res.AllProjects))
	}
	return err
}

// volumeFixCommand is the volume command with the image command's flags,
// the cloud (and region) it just changed (without them the line would run
// against OS_CLOUD or the default cloud) and the connection flags given
// on the command line (--os-cacert, --insecure, --timeout; those from the
// environment are still there when it runs). Every value is shell-quoted;
// a control character (a hostile image ID) shows as '?', so the advice
// stays one line.
func volumeFixCommand(o *imageChangeOptions, imageID string, admin bool) string {
	words := []string{"vtpmctl"}
	flag := func(name, value string) {
		words = append(words, name, quote.Shell(quote.OneLine(value)))
	}
	if o.Global != nil {
		if c := o.Global.Cloud.Cloud; c != "" {
			flag("--os-cloud", c)
		}
		if r := o.Global.Cloud.Region; r != "" {
			flag("--os-region-name", r)
		}
		// without --os-cacert the suggested command fails TLS
		c, on := o.Global.Cloud, o.Global.cmdLine
		if on["os-cacert"] && c.CACert != "" {
			flag("--os-cacert", c.CACert)
		}
		if on["insecure"] && c.Insecure {
			words = append(words, "--insecure")
		}
		if on["timeout"] {
			flag("--timeout", c.Timeout.String())
		}
	}
	words = append(words, "volume", verb(o.Set))
	flag("--select", "image_id="+imageID)
	if o.Version != "" {
		flag("--tpm-version", o.Version)
	}
	if o.Model != "" {
		flag("--tpm-model", o.Model)
	}
	if o.Windows {
		words = append(words, "--windows")
	}
	if admin {
		words = append(words, "--all-projects")
	}
	return strings.Join(words, " ")
}

func newImageShowCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	o := &showOptions{IO: streams, Global: g}
	return withResult(o.command("image", "IMAGE", helpText{usage: "an image's vTPM properties, Windows profile state and what Nova makes of it",
		about: `Shows the vTPM and Windows-profile properties of one image and what Nova
would give a server built from it with a flavor that carries no hw:tpm_*.`,
		examples: []string{"vtpmctl image show win11-23h2", "vtpmctl image show 6f1c0d2e-8a41-4c3e-9b7d-2f5e1a0c9d13 -f json"}}, nil,
		func(ctx context.Context, sess *cloud.Session) (output.Recorder, nova.ResolvedRelease, error) {
			shown, err := image.Show(ctx, sess, image.ShowRequest{Ref: o.Ref, Release: novaRelease(o.Release)})
			return shown, shown.Release, err
		}), prints(image.Shown{}))
}

func newImageListCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	o := &listOptions{IO: streams, Global: g}
	return withResult(o.command("image", helpText{usage: "images with their vTPM properties and Windows profile state",
		about: `Lists the images of Glance's default list (all pages): public ones, the
project's own, and those shared with it that it accepted. Glance leaves out
community images of other projects, hidden images (os_hidden) and shares
not accepted; image show still finds one by ID. --select filters on the
server side; --vtpm / --no-vtpm keep images with / without hw_tpm_version.`,
		examples: []string{"vtpmctl image list --vtpm", "vtpmctl image list --select os_distro=windows --no-vtpm -f value -c name"}},
		o.filterFlags("only images that request a vTPM", "only images that do not", "only images with property `KEY=VALUE` (repeatable)"),
		func(ctx context.Context, sess *cloud.Session) (output.Tabular, error) {
			return image.List(ctx, sess, image.ListRequest{Properties: o.Properties, VTPM: o.filter()})
		}), prints(image.Listed{}))
}
