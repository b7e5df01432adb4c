package main

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/domain/migration"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/infile"
	"github.com/vtpmctl/vtpmctl/internal/output"
)

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
',' or ';', BOM, quotes, numbers with separators; an .xlsx workbook is
refused: export the vInfo tab as CSV); templates and SRM
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
				releaseFlag("nova-release", &imp.Release, "target Nova `RELEASE` (for the operational limits and the flavor specs proposed)", "the cloud's with --os-cloud, else "+migration.DefaultRelease.String()),
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

// readPlanFile reads a plan through infile: a FIFO or /dev/zero named as
// the plan is refused at once, never waited on or read for ever.
func readPlanFile(path string) (*migration.Plan, error) {
	f, err := infile.Open(path, 0)
	if err != nil {
		return nil, usagef("%w", err)
	}
	defer f.Close()
	p, err := migration.ReadPlan(f, path)
	if err != nil {
		return nil, usagef("%w", err)
	}
	return p, nil
}

// warnPlanKeys warns of each plan image's properties key that Nova
// ignores but that stands for a vTPM key, named by file and entry; only,
// when set, keeps the images it says (plan apply names the others on
// their Glance image).
func warnPlanKeys(streams *IOStreams, file string, p *migration.Plan, only func(image string) bool) {
	for _, m := range p.NearMisses() {
		if only == nil || only(m.Image) {
			warn(streams, "%s: %s: %s", file, m.Entry, nearMissLine("properties key ", m.NearMiss, nova.Decision{}))
		}
	}
}

func newPlanChecklistCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	return withResult(withFormats(&cli.Command{
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
			warnPlanKeys(streams, cmd.Args().First(), p, nil)
			return output.Write(streams.Out, g.Output, migration.NewChecklist(p))
		},
	}, documentFormats...), prints(&migration.CutoverChecklist{}))
}
