package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/output"

	"github.com/vtpmctl/vtpmctl/app/check"
)

type checkOptions struct {
	IO     *IOStreams
	Global *globalOptions

	Image, Flavor         string   // names or IDs on the cloud
	Volume                string   // boot volume name or ID: its image metadata replaces the image
	AllProjects           bool     // find --volume by name in every project
	ImageProps            []string // KEY=VALUE, offline or on top of --image
	FlavorSpecs           []string // KEY=VALUE, offline or on top of --flavor
	ImageName, FlavorName string   // names in Nova's messages, offline
	Release               nova.Release
}

func newCheckCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	o := &checkOptions{IO: streams, Global: g}
	return withResult(&cli.Command{
		Name:  "check",
		Usage: "predict what Nova does with an image + flavor: vTPM, version, model, traits, or its error",
		Description: commandHelp(`
Applies Nova's own rules (hardware.get_vtpm_constraint and the scheduler's
trait translation) for the Nova release of the cloud, and prints: whether the
guest gets a vTPM, its version and model, the secret security mode (Nova 33,
2026.1, and later),
the Placement traits a host must report, the server operations Nova will
refuse for the guest — or Nova's exact error and when the user would meet it
(HTTP 400 at create, or a server in ERROR after scheduling).

With --image/--flavor the objects are read from the cloud and the release is
detected from the compute API's maximum microversion; where a maximum is
shared by releases with different vTPM rules (2.96: 2024.1 and 2024.2),
--nova-release settles it. With only --image-property/--flavor-spec the check
is fully offline and --nova-release is required. Properties and specs given
on the command line are applied on top of the cloud's (a "what if").

A key Nova does not read that stands for a vTPM key (hw_tpm_verion, a
missing prefix as in tpm_version, or the image's spelling hw_tpm_version as a
flavor extra spec) is a warning naming the key Nova reads and what ignoring
it does (no vTPM, or the default model or mode); -f json lists them in
near_misses. Nova itself ignores such a key without a word.

-f value and csv print raw values for scripts: -c version is 2.0 (where it
came from is -c version_source), -c nova_release is what --nova-release takes
(zed, 2024.2); the table names the release in words.

--volume checks a server booted from an existing volume (or its snapshot):
Nova then reads the volume's image metadata, not Glance. A volume that is not
bootable is refused at create; a flavor/volume conflict puts the server in
ERROR with the fault "NotImplementedError" (Nova cannot name a volume's image
in its conflict message; the notes say what it meant). A server created with
--image X --boot-from-volume SIZE reads the Glance image: check it with --image.`,
			[]string{
				"vtpmctl check --image-property hw_tpm_version=2.0 --flavor-spec hw:tpm_model=tpm-crb --nova-release zed",
				"vtpmctl check --flavor-spec hw:tpm_version=1.2 --flavor-spec hw:tpm_model=tpm-crb --nova-release 2024.2",
				"vtpmctl --os-cloud prod check --image win11-23h2 --flavor w1.large",
				"vtpmctl --os-cloud prod check --image win11 --flavor w1.large --flavor-spec hw:tpm_secret_security=host -f json",
				"vtpmctl --os-cloud prod check --volume win11-boot --flavor w1.large",
			},
			`EXIT STATUS:
   0  Nova would accept the request (with or without a vTPM)
   1  Nova would refuse it (the error and when it surfaces are printed)
   2  usage or configuration error, unknown image, volume or flavor, ambiguous name`),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "image", Usage: "image `NAME_OR_ID` on the cloud", Destination: &o.Image},
			&cli.StringFlag{Name: "flavor", Usage: "flavor `NAME_OR_ID` on the cloud", Destination: &o.Flavor},
			&cli.StringFlag{Name: "volume", Usage: "boot volume `NAME_OR_ID` on the cloud (instead of --image)", Destination: &o.Volume},
			&cli.BoolFlag{Name: "all-projects", Usage: "with --volume: find the volume by name in every project (admin)", Destination: &o.AllProjects},
			&cli.StringSliceFlag{Name: "image-property", Usage: "image property `KEY=VALUE` (repeatable)", Destination: &o.ImageProps},
			&cli.StringSliceFlag{Name: "flavor-spec", Usage: "flavor extra spec `KEY=VALUE` (repeatable)", Destination: &o.FlavorSpecs},
			&cli.StringFlag{Name: "image-name", Usage: "image `NAME` used in Nova's messages when offline", Value: "(command line)", Destination: &o.ImageName},
			&cli.StringFlag{Name: "flavor-name", Usage: "flavor `NAME` used in Nova's messages when offline", Value: "(command line)", Destination: &o.FlavorName},
			releaseFlag("nova-release", &o.Release, "Nova `RELEASE`; required offline", "detected from the cloud with --image/--flavor"),
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := noArgs(cmd); err != nil {
				return err
			}
			return runCheck(ctx, o)
		},
	}, prints(check.Report{}))
}

// nearMissLine words a key Nova ignores (what names it: "image
// property "), why it is none of Nova's, what ignoring it does to d (when
// NearMisses said) and the key it stands for.
func nearMissLine(what string, m nova.NearMiss, d nova.Decision) string {
	line := what + m.Key
	switch m.Reason {
	case nova.MissOtherKind:
		line += ", " + map[nova.KeyKind]string{nova.ImageKeys: "a flavor extra spec's", nova.FlavorKeys: "an image property's"}[m.Kind] + " spelling,"
	case nova.MissPrefix:
		body := strings.TrimPrefix(strings.TrimPrefix(m.Want, "hw_"), "hw:")
		line += ", without its " + strings.TrimSuffix(m.Want, body) + " prefix,"
	}
	line += " is not a key Nova reads"
	switch m.Effect {
	case nova.EffectNoVTPM:
		line += ", so Nova gives the server no vTPM"
	case nova.EffectDefaultModel:
		line += ", so Nova gives the default model, " + d.Model
	case nova.EffectDefaultSecretSecurity:
		line += ", so Nova gives the default mode, " + string(d.SecretSecurity)
	}
	return fmt.Sprintf("%s; did you mean %s?", line, m.Want)
}

func runCheck(ctx context.Context, o *checkOptions) error {
	props, err := nova.ParseKeyValues(o.ImageProps)
	if err != nil {
		return usagef("--image-property: %w", err)
	}
	specs, err := nova.ParseKeyValues(o.FlavorSpecs)
	if err != nil {
		return usagef("--flavor-spec: %w", err)
	}
	if o.Image != "" && o.Volume != "" {
		return usagef("check: --image and --volume exclude each other (a server boots from one)")
	}
	if o.AllProjects && o.Volume == "" {
		return usagef("check: --all-projects finds a --volume in every project; give --volume")
	}
	req := check.Request{Image: o.Image, Flavor: o.Flavor, Volume: o.Volume, AllProjects: o.AllProjects,
		ImageProperties: props, FlavorSpecs: specs, ImageName: o.ImageName, FlavorName: o.FlavorName,
		Release: nova.ReleaseEvidence{Flag: o.Release, Field: nova.FieldRelease}}
	var sess *cloud.Session
	if req.Online() {
		if sess, err = o.Global.connect(ctx); err != nil {
			return err
		}
	} else if o.Release == nova.ReleaseUnknown {
		return usagef("check: an offline check needs --nova-release (or --image/--flavor and a cloud to detect it from)")
	}
	res, err := check.Check(ctx, sess, req)
	if err != nil {
		return err
	}
	var note string
	if res.Settled() {
		if w := res.Release.WarningIn(res.Differ, flagName); w != "" {
			warn(o.IO, "%s", w)
		}
		note = res.Release.NoteIn(res.Differ, flagName)
	}
	where := map[nova.KeyKind]string{nova.ImageKeys: "image property", nova.FlavorKeys: "flavor extra spec"}
	if o.Volume != "" {
		where[nova.ImageKeys] = "volume image metadata"
	}
	for _, m := range res.NearMisses {
		warn(o.IO, "%s", nearMissLine(where[m.Kind]+" ", m, res.Decision))
	}
	if err := output.Write(o.IO.Out, o.Global.Output, check.NewReport(res.Decision, note, res.NearMisses)); err != nil {
		return err
	}
	if res.Decision.Error != nil {
		return &reportedError{code: exitFailed}
	}
	return nil
}
