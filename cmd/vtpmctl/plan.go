package main

import (
	"context"
	"errors"
	"fmt"
	stdio "io"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/fileout"
	"github.com/vtpmctl/vtpmctl/internal/infile"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/quote"
	"github.com/vtpmctl/vtpmctl/plans"
)

type planImportOptions struct {
	IO     *IOStreams
	Global *globalOptions

	RVTools    string
	Govc       []string
	GovcFrom   []string // VCENTER=[VMNAME=]FILE
	VCenters   []string
	Flavors    string
	FromCloud  bool
	VTPMColumn string
	Strict     bool
	TPMModel   string
	Release    nova.Release
	Out        string
}

type planApplyOptions struct {
	IO          *IOStreams
	Global      *globalOptions
	File        string
	Yes         bool
	DryRun      bool
	Release     nova.Release
	Match       []string // boot volumes: VM=VOLUME or a template
	AllProjects bool     // list every project's volumes (admin)
}

func newPlanCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	imp := &planImportOptions{IO: streams, Global: g}
	return &cli.Command{
		Name:  "plan",
		Usage: "vSphere inventory in, vTPM-aware OpenStack migration plan out; converge the cloud to it",
		Description: commandHelp("import a vSphere inventory into a plan, diff and apply it against a cloud, print the cutover checklist.", []string{
			"vtpmctl plan import --rvtools RVTools_tabvInfo.csv --govc vms.json --flavors catalogue.yaml -o plan.yaml",
			"vtpmctl --os-cloud prod plan apply plan.yaml --yes",
			"vtpmctl plan checklist plan.yaml > cutover.md"}, ""),
		Action: groupAction,
		Commands: []*cli.Command{{
			Name:  "import",
			Usage: "turn an RVTools vInfo export (and govc JSON) into a plan",
			Description: commandHelp(`
Reads RVTools' vInfo CSV by header name (display or -DBColumnNames headers,
',' or ';', BOM, quotes, numbers with separators); templates and SRM
placeholders are skipped with the reason; a malformed row is reported with
its line and skipped (--strict: fatal). RVTools has no vTPM column, so the
vTPM comes from govc JSON (vm.info for many VMs; device.info or
object.collect as NAME=FILE), joined on the VM's UUIDs, or from a custom
attribute column (--vtpm-column); otherwise it is unknown and the checklist
says how to find out. govc's JSON does not say which vCenter it came from:
with several vCenters give each file as --govc-from VCENTER=FILE, and VMs
join by (vCenter, MoRef) and never across vCenters.

Rules, written into the plan as reasons: a source vTPM gives TPM 2.0 on the
target (its contents never travel); Windows 11 gets TPM 2.0, UEFI and Secure
Boot even without a source vTPM (flagged); no TPM is added to any other guest
that had none; EFI gives hw_firmware_type=uefi and q35; Secure Boot gives
os_secure_boot=required; BIOS with Secure Boot is flagged. Each VM maps to the
smallest catalogue flavor that fits and carries matching vTPM specs (or none);
with no fit a new flavor is proposed in the plan.

--vcenter URL reads the VMs straight from vCenter (govc's conventions:
GOVC_USERNAME, GOVC_PASSWORD, GOVC_INSECURE=1 to accept any certificate,
GOVC_DATACENTER to read one datacenter): one property-collector pass over
every VM, its firmware, Secure Boot, VirtualTPM device, guest OS, size,
encryption key provider and snapshot count. Several --vcenter merge; the same
VM name on two vCenters stays two VMs (told apart by vCenter and instance
UUID). Credentials never go on the command line: a URL with a user or
password in it is refused. Each vCenter request is bounded by --timeout, as
OpenStack's are, and Ctrl-C stops the import.`, []string{
				"vtpmctl plan import --rvtools RVTools_tabvInfo.csv --govc vms.json --flavors catalogue.yaml -o plan.yaml",
				"vtpmctl plan import --rvtools vInfo.csv --govc win2022=device-info.json --flavors-from-cloud --os-cloud prod -o plan.yaml",
				"vtpmctl plan import --rvtools vInfo.csv --vtpm-column vTPM --strict -o plan.yaml",
				"GOVC_USERNAME=auditor@vsphere.local GOVC_PASSWORD=… vtpmctl plan import --vcenter vc01.example.net --vcenter vc02.example.net -o plan.yaml",
			}, `EXIT STATUS:
   0  the plan was written (skipped rows and flags are reported)
   1  the plan could not be written
   2  usage error, unreadable or malformed input (with --strict: any bad row)`),
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "rvtools", Usage: "RVTools vInfo CSV `FILE`", Destination: &imp.RVTools},
				&cli.StringSliceFlag{Name: "govc", Usage: "govc JSON `[VMNAME=]FILE` (repeatable)", Destination: &imp.Govc},
				&cli.StringSliceFlag{Name: "govc-from", Usage: "govc JSON taken from one vCenter: `VCENTER=[VMNAME=]FILE` (repeatable): joins by that vCenter's MoRefs", Destination: &imp.GovcFrom},
				&cli.StringSliceFlag{Name: "vcenter", Usage: "read every VM from vCenter `URL` (repeatable; GOVC_URL if the value is 'env'; credentials from GOVC_USERNAME/GOVC_PASSWORD only)", Destination: &imp.VCenters},
				&cli.StringFlag{Name: "flavors", Usage: "flavor catalogue YAML `FILE`", Destination: &imp.Flavors},
				&cli.BoolFlag{Name: "flavors-from-cloud", Usage: "use the cloud's flavors as the catalogue", Destination: &imp.FromCloud},
				&cli.StringFlag{Name: "vtpm-column", Usage: "custom attribute `COLUMN` that says whether a VM has a vTPM", Destination: &imp.VTPMColumn},
				&cli.BoolFlag{Name: "strict", Usage: "a malformed row is fatal", Destination: &imp.Strict},
				&cli.StringFlag{Name: "tpm-model", Usage: "`MODEL` of the target vTPMs", Value: "tpm-crb", Destination: &imp.TPMModel},
				releaseFlag("nova-release", &imp.Release, "target Nova `RELEASE` (for the operational limits and the flavor specs proposed)", "the cloud's with --os-cloud, else "+defaultImportRelease.String()),
				outputFlag(&imp.Out, "write the plan to `FILE` (default or -: stdout)"),
			},
			Action: func(ctx context.Context, cmd *cli.Command) error {
				if err := noArgs(cmd); err != nil {
					return err
				}
				return runPlanImport(ctx, imp)
			},
		}, newPlanApplyCommand(g, streams, false), newPlanApplyCommand(g, streams, true), newPlanChecklistCommand(g, streams), newPlanVerifyCommand(g, streams)},
	}
}

func runPlanImport(ctx context.Context, o *planImportOptions) error {
	start := time.Now()
	if o.RVTools == "" && len(o.Govc)+len(o.GovcFrom) == 0 && len(o.VCenters) == 0 {
		return usagef("plan import: give --rvtools FILE, --govc FILE and/or --vcenter URL")
	}
	if len(o.VCenters) > 0 && (o.RVTools != "" || len(o.Govc)+len(o.GovcFrom) > 0) {
		return usagef("plan import: --vcenter reads the source of truth; it does not mix with --rvtools or --govc files")
	}
	if o.Flavors != "" && o.FromCloud {
		return usagef("plan import: --flavors and --flavors-from-cloud exclude each other")
	}
	if err := nova.ValidateTPM("2.0", o.TPMModel); err != nil {
		return inWords(err, flagName)
	}
	rel, relFrom, err := importRelease(ctx, o)
	if err != nil {
		return err
	}
	vms, skipped, rowErrs, err := readInventory(ctx, o)
	if err != nil {
		return err
	}
	catalogue, err := readCatalogue(ctx, o)
	if err != nil {
		return err
	}
	sum := plans.ImportSummary{}
	for _, e := range rowErrs {
		say(o.IO.Err, "vtpmctl: skipped row: %v", e)
	}
	for _, s := range skipped {
		say(o.IO.Err, "vtpmctl: skipped %s (line %d): %s", s.Name, s.Line, s.Reason)
	}
	for _, v := range vms {
		for _, w := range v.Warnings {
			say(o.IO.Err, "vtpmctl: warning: %s", w)
		}
	}
	out := o.Out
	if out == "" {
		out = "-"
	}
	// Said once the inputs are read: a refused input is the one line.
	say(o.IO.Err, "vtpmctl: plan import: targeting Nova %s (%s)", rel.Long(), relFrom)
	opts := plans.ImportOptions{Catalogue: catalogue, TPMModel: o.TPMModel, Release: rel, Now: time.Now()}
	err = fileout.Write(out, fileout.Public, o.IO.Out, func(w stdio.Writer) error {
		var err error
		sum, err = plans.WriteImport(ctx, w, vms, opts, plans.PlanSource{RVTools: o.RVTools, Govc: append(append([]string{}, o.Govc...), o.GovcFrom...), NovaRelease: rel})
		return err
	})
	if err != nil {
		return fmt.Errorf("-o %s: %w", out, err)
	}
	sum.Skipped, sum.RowErrors = len(skipped), len(rowErrs)
	fmt.Fprintf(o.IO.Err, "vtpmctl: %d VMs: %d get a vTPM (%d had one, %d unknown), %d flagged, %d skipped, %d bad rows, %d proposed flavors; imported in %s\n",
		sum.VMs, sum.TargetVTPM, sum.SourceVTPM, sum.UnknownVTPM, sum.Flagged, sum.Skipped, sum.RowErrors, sum.ProposedFlavors, time.Since(start).Round(time.Millisecond))
	return nil
}

// defaultImportRelease is the target of a plan made without a cloud or
// --nova-release: the newest release that is in production.
const defaultImportRelease = nova.Gazpacho

// importRelease is the Nova release the plan targets and where it came
// from, for the line runPlanImport says: --nova-release, else the named
// cloud's (a Zed cloud must not be offered hw:tpm_secret_security, which
// its Nova does not know), else defaultImportRelease.
func importRelease(ctx context.Context, o *planImportOptions) (nova.Release, string, error) {
	if o.Release != nova.ReleaseUnknown {
		return o.Release, "--nova-release", nil
	}
	if o.Global.Cloud.Cloud == "" && !o.FromCloud {
		return defaultImportRelease, "the default; --nova-release or --os-cloud to target another", nil
	}
	sess, err := o.Global.connect(ctx)
	if err != nil {
		return 0, "", err
	}
	c, err := sess.Compute()
	if err != nil {
		return 0, "", err
	}
	res, err := resolveRelease(ctx, o.IO, nova.FieldRelease, o.Release, c, false, nil)
	if err != nil {
		return 0, "", fmt.Errorf("plan import: the target release: %w", err)
	}
	from := "the cloud's"
	if sess.CloudName != "" {
		from = "cloud " + sess.CloudName
	}
	return res.Release, from, nil
}

// readInventory reads the RVTools export and the govc files and joins
// them; unmatched govc VMs are named on stderr.
func readInventory(ctx context.Context, o *planImportOptions) (vms []plans.SourceVM, skipped []plans.Skipped, rowErrs []error, err error) {
	if len(o.VCenters) > 0 {
		vms, skipped, err = readVCenters(ctx, o)
		return vms, skipped, nil, err
	}
	if o.RVTools != "" {
		f, err := infile.Open(o.RVTools, 0)
		if err != nil {
			return nil, nil, nil, usagef("--rvtools: %w", err)
		}
		vms, skipped, rowErrs, err = plans.ParseRVTools(f, plans.RVToolsOptions{File: o.RVTools, VTPMColumn: o.VTPMColumn, Strict: o.Strict})
		f.Close()
		if err != nil {
			return nil, nil, nil, usagef("%w", err)
		}
	}
	var govc []plans.GovcVM
	type govcFile struct{ flag, vcenter, arg string }
	var files []govcFile
	for _, arg := range o.Govc {
		files = append(files, govcFile{"--govc", "", arg})
	}
	for _, arg := range o.GovcFrom {
		vc, rest, ok := strings.Cut(arg, "=")
		if !ok || vc == "" || rest == "" {
			return nil, nil, nil, usagef("--govc-from %q: expected VCENTER=[VMNAME=]FILE", arg)
		}
		files = append(files, govcFile{"--govc-from", vc, rest})
	}
	for _, f := range files {
		name, file := "", f.arg
		if k, v, ok := strings.Cut(f.arg, "="); ok && !strings.ContainsAny(k, "/\\") {
			name, file = k, v
		}
		data, err := infile.ReadFile(file, 0)
		if err != nil {
			return nil, nil, nil, usagef("%s: %w", f.flag, err)
		}
		g, err := plans.ParseGovc(data, name, file)
		if err != nil {
			return nil, nil, nil, usagef("%s: %w", f.flag, err)
		}
		for i := range g {
			g[i].VCenter = f.vcenter
		}
		govc = append(govc, g...)
	}
	skipped = append(skipped, plans.GovcTemplates(govc)...)
	vms, unmatched := plans.JoinGovc(vms, govc, o.RVTools == "")
	for _, n := range unmatched {
		say(o.IO.Err, "vtpmctl: govc VM %s is not a VM of the RVTools export (a template or placeholder?): ignored", n)
	}
	return vms, skipped, rowErrs, nil
}

// readCatalogue is the flavor catalogue to map onto: a file, the cloud's
// flavors, or none (every VM gets a proposed flavor).
func readCatalogue(ctx context.Context, o *planImportOptions) ([]plans.PlanFlavor, error) {
	switch {
	case o.Flavors != "":
		f, err := infile.Open(o.Flavors, 0)
		if err != nil {
			return nil, usagef("--flavors: %w", err)
		}
		defer f.Close()
		catalogue, err := plans.ReadCatalogue(f, o.Flavors)
		if err != nil {
			return nil, usagef("--flavors: %w", err)
		}
		return catalogue, nil
	case o.FromCloud:
		sess, err := o.Global.connect(ctx)
		if err != nil {
			return nil, err
		}
		c, err := sess.Compute()
		if err != nil {
			return nil, err
		}
		return plans.CatalogueFromCloud(ctx, c)
	}
	return nil, nil
}

func newPlanApplyCommand(g *globalOptions, streams *IOStreams, apply bool) *cli.Command {
	o := &planApplyOptions{IO: streams, Global: g}
	c := &cli.Command{Name: "diff", ArgsUsage: "PLAN", Usage: "what plan apply would change on the cloud (writes nothing)"}
	about := `Compares the plan's images and flavors with the cloud, using the same code
as the image and flavor commands, and prints every key: added, replaced or
unchanged. Nothing the plan does not name is touched; nothing is removed.
Images the plan names that are not in Glance yet (disks not converted) are
listed as pending.

A VM whose disk a migration tool landed on a Cinder volume (migratekit,
os-migrate, virt-v2v -o openstack) has its boot volume converged instead.
Its boot volume is found by the first of these that finds one:
  1. a --match VM=VOLUME rule (the volume's name or ID)
  2. the volume's image metadata, then its metadata, vtpmctl:source naming the VM
  3. a --match template, e.g. {vm}-boot
  4. the VM's plan image name, then the VM's name
where several volumes qualify only the bootable ones count (a template or a
name finds bootable volumes only). The volume gets the plan image's vTPM,
UEFI and Secure Boot properties in its image metadata
(os-set_image_metadata), which Nova reads for a volume-backed server. Two
volumes for one VM, or one for two, stop the apply before any write: name
the boot volume with --match VM=VOLUME.`
	exit := `EXIT STATUS:
   0  the difference was computed (or, for apply --yes, every write succeeded)
   1  a write failed (apply): what was applied and what was not is printed; rerun to converge
   2  usage error, unreadable or invalid plan, a plan Nova would refuse, a plan flavor
      whose name the cloud has with another size: nothing is written`
	if apply {
		c = &cli.Command{Name: "apply", ArgsUsage: "PLAN", Usage: "converge the cloud's images, flavors and boot volumes to the plan (dry run unless --yes)"}
		about += `

apply is a dry run unless --yes. It is idempotent: a second apply sends no
write. A new flavor is created all or nothing. On a failure midway, every
object's outcome is printed, the exit status is 1, and a rerun converges.`
		c.Flags = []cli.Flag{&cli.BoolFlag{Name: "yes", Usage: "write the changes", Destination: &o.Yes},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the changes, write nothing (even with --yes)", Destination: &o.DryRun}}
	}
	c.Flags = append(c.Flags, releaseFlag("nova-release", &o.Release, "Nova `RELEASE` whose rules apply", ""),
		&cli.StringSliceFlag{Name: "match", Usage: "tie VMs to boot volumes: `VM=VOLUME` (name or ID) or a template such as {vm}-boot (repeatable)", Destination: &o.Match},
		&cli.BoolFlag{Name: "all-projects", Usage: "look for boot volumes in every project (admin)", Destination: &o.AllProjects})
	c.Description = commandHelp(about, []string{"vtpmctl --os-cloud prod plan diff plan.yaml", "vtpmctl --os-cloud prod plan apply plan.yaml --yes"}, exit)
	c.Action = func(ctx context.Context, cmd *cli.Command) error {
		if cmd.Args().Len() != 1 {
			return usagef("plan %s: exactly one PLAN file", c.Name)
		}
		o.File = cmd.Args().First()
		return runPlanApply(ctx, o, apply && o.Yes && !o.DryRun)
	}
	return c
}

// readPlanFile reads a plan through infile: a FIFO or /dev/zero named as
// the plan is refused at once, never waited on or read for ever.
func readPlanFile(path string) (*plans.Plan, error) {
	f, err := infile.Open(path, 0)
	if err != nil {
		return nil, usagef("%w", err)
	}
	defer f.Close()
	p, err := plans.ReadPlan(f, path)
	if err != nil {
		return nil, usagef("%w", err)
	}
	return p, nil
}

func runPlanApply(ctx context.Context, o *planApplyOptions, write bool) error {
	var rules []plans.MatchRule
	for _, m := range o.Match {
		r, err := plans.ParseMatch(m)
		if err != nil {
			return usagef("%v", strings.Replace(err.Error(), "SERVER", "VOLUME", 1))
		}
		rules = append(rules, r)
	}
	p, err := readPlanFile(o.File)
	if err != nil {
		return err
	}
	sess, err := o.Global.connect(ctx)
	if err != nil {
		return err
	}
	res, err := plans.Apply(ctx, sess, plans.ApplyRequest{Plan: p, Rules: rules, AllProjects: o.AllProjects, Write: write,
		Release:  nova.ReleaseEvidence{Flag: o.Release, Field: nova.FieldRelease},
		Progress: func(ctx context.Context, phase string) context.Context { return withProgress(ctx, o.IO.Err, phase) }})
	if w := res.Release.WarningIn(nil, flagName); w != "" {
		warn(o.IO, "%s", w) // the release the diff used, even when it failed
	}
	var diffErr *plans.DiffError
	switch {
	case errors.As(err, &diffErr):
		// exitCode tells a bad plan (2) from a failed cloud (1); a value
		// Nova refuses is named by the plan's key, not a flag.
		return inWords(fmt.Errorf("plan %s: %w", o.File, diffErr.Err), planKey)
	case errors.Is(err, plans.ErrNoBlockStorage):
		return usagef("--match: %v", err)
	case err != nil:
		return err
	}
	conv := res.Convergence
	for _, m := range conv.Missing {
		say(o.IO.Err, "vtpmctl: image %s: pending, not in Glance yet (convert the VM's disk first)", m)
	}
	all := append(append(append([]nova.ObjectPlan{}, conv.Images...), conv.Flavors...), conv.Volumes...)
	err = printChanges(o.IO, o.Global, all, !write)
	if !write {
		fmt.Fprintln(o.IO.Err, "vtpmctl: pass --yes to plan apply to write these changes")
	}
	return err
}

func newPlanChecklistCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	return withFormats(&cli.Command{
		Name: "checklist", ArgsUsage: "PLAN", Usage: "per VM: what to do before cutover, what to check after, the target's limits",
		Description: commandHelp(`Prints each VM's cutover checklist from the plan: escrow or suspend
BitLocker, what else is sealed to the TPM, LUKS+TPM on Linux, the post-boot
check (Get-Tpm shows TpmPresent), and what the target cannot do (evacuate,
shelve, live-migrate per mode and release). A markdown document unless -f
asks for csv, json, yaml, value or table.

A plan's checklist: line is text, or says its phase: {phase: after, item:
TEXT} (before, after or limits). Text lines keep the phase plan import gave
them: "after first boot…" after cutover, "on the target…" and "snapshots and
backups…" limits, any other before.`,
			[]string{"vtpmctl plan checklist plan.yaml > cutover.md", "vtpmctl plan checklist plan.yaml -f csv > cutover.csv"}, ""),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() != 1 {
				return usagef("plan checklist: exactly one PLAN file")
			}
			p, err := readPlanFile(cmd.Args().First())
			if err != nil {
				return err
			}
			return output.Write(streams.Out, g.Output, plans.NewChecklist(p))
		},
	}, documentFormats...)
}

// readVCenters reads each --vcenter in turn with govc's environment.
func readVCenters(ctx context.Context, o *planImportOptions) ([]plans.SourceVM, []plans.Skipped, error) {
	getenv := os.Getenv
	user, pass := getenv("GOVC_USERNAME"), getenv("GOVC_PASSWORD")
	insecure := false
	if v := getenv("GOVC_INSECURE"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, nil, usagef("GOVC_INSECURE=%q: use 1 or 0", quote.OneLine(v))
		}
		insecure = b
	}
	cloud.RegisterPassword(pass)
	var vms []plans.SourceVM
	var skipped []plans.Skipped
	for _, raw := range o.VCenters {
		target, fromEnv := raw, false
		if raw == "env" {
			target, fromEnv = getenv("GOVC_URL"), true
			if target == "" {
				return nil, nil, usagef("--vcenter env: GOVC_URL is not set")
			}
		}
		if !strings.Contains(target, "://") {
			target = "https://" + target // govc's default scheme
		}
		u, err := url.Parse(target)
		if err != nil {
			return nil, nil, usagef("--vcenter %q is not a URL", quote.OneLine(target))
		}
		vuser, vpass := user, pass
		if u.User != nil {
			if !fromEnv {
				return nil, nil, usagef("--vcenter: credentials never go on the command line; set GOVC_USERNAME and GOVC_PASSWORD")
			}
			vuser = u.User.Username()
			vpass, _ = u.User.Password()
			cloud.RegisterPassword(vpass)
			u.User = nil
		}
		if vuser == "" {
			return nil, nil, usagef("--vcenter %s: set GOVC_USERNAME and GOVC_PASSWORD", u.Host)
		}
		// The same per-request deadline as OpenStack's, and ctx is cancelled
		// by SIGINT/SIGTERM: a vCenter that never answers cannot hang us.
		got, skip, _, err := plans.ReadVCenter(ctx, plans.VCenter{URL: u.String(), Username: vuser, Password: vpass, Insecure: insecure,
			Datacenter: getenv("GOVC_DATACENTER"), Timeout: o.Global.Cloud.Timeout})
		var te *plans.TimeoutError
		if errors.As(err, &te) {
			return nil, nil, fmt.Errorf("%w (--timeout; raise it if this vCenter is only slow)", err)
		}
		if err != nil {
			return nil, nil, err
		}
		vms, skipped = append(vms, got...), append(skipped, skip...)
	}
	return vms, skipped, nil
}
