package main

import (
	"context"
	"errors"
	"fmt"
	stdio "io"
	"os"
	"strings"
	"time"

	"github.com/vtpmctl/vtpmctl/app/plan"
	"github.com/vtpmctl/vtpmctl/domain/migration"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fileout"
	"github.com/vtpmctl/vtpmctl/internal/quote"
	"github.com/vtpmctl/vtpmctl/vsphere"
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
	req, err := o.request()
	if err != nil {
		return err
	}
	res, err := plan.Import(ctx, o.Global.connect, req)
	// Said even when a later read failed, as each was learnt.
	if res.From == plan.ReleaseFromCloud {
		warnRelease(o.IO, res.Resolved)
	}
	for _, n := range res.Unmatched {
		say(o.IO.Err, "vtpmctl: govc VM %s is not a VM of the RVTools export (a template or placeholder?): ignored", n)
	}
	if err != nil {
		return importInWords(err)
	}
	for _, e := range res.RowErrors {
		say(o.IO.Err, "vtpmctl: skipped row: %v", e)
	}
	for _, s := range res.Skipped {
		say(o.IO.Err, "vtpmctl: skipped %s (line %d): %s", s.Name, s.Line, s.Reason)
	}
	for _, v := range res.VMs {
		for _, w := range v.Warnings {
			say(o.IO.Err, "vtpmctl: warning: %s", w)
		}
	}
	out := o.Out
	if out == "" {
		out = "-"
	}
	// Said once the inputs are read: a refused input is the one line.
	say(o.IO.Err, "vtpmctl: plan import: targeting Nova %s (%s)", res.Release.Long(), importReleaseFrom(res))
	var sum migration.ImportSummary
	err = fileout.Write(ctx, out, fileout.Public, o.IO.Out, func(w stdio.Writer) error {
		var err error
		sum, err = res.Write(ctx, w, planHeader)
		return err
	})
	if err != nil {
		return fmt.Errorf("-o %s: %w", out, err)
	}
	fmt.Fprintf(o.IO.Err, "vtpmctl: %d VMs: %d get a vTPM (%d had one, %d unknown), %d flagged, %d skipped, %d bad rows, %d proposed flavors; imported in %s\n",
		sum.VMs, sum.TargetVTPM, sum.SourceVTPM, sum.UnknownVTPM, sum.Flagged, sum.Skipped, sum.RowErrors, sum.ProposedFlavors, time.Since(start).Round(time.Millisecond))
	return nil
}

// planHeader heads the plan plan import writes: who wrote it, what to
// run next.
var planHeader = []string{"vTPM-aware migration plan, written by vtpmctl plan import.",
	"Review it, then: vtpmctl plan diff plan.yaml; vtpmctl plan apply plan.yaml --yes"}

// request is plan import's flags as the use case's request; a
// --govc-from value that names no vCenter is refused here.
func (o *planImportOptions) request() (plan.ImportRequest, error) {
	req := plan.ImportRequest{RVTools: o.RVTools, VTPMColumn: o.VTPMColumn, Strict: o.Strict,
		Catalogue: o.Flavors, CatalogueFromCloud: o.FromCloud, TPMModel: o.TPMModel,
		Release: nova.ReleaseEvidence{Flag: o.Release, Field: nova.FieldRelease}, Cloud: o.Global.Cloud.Cloud != "",
		Timeout: o.Global.Cloud.Timeout, Words: planWords{}}
	for _, arg := range o.Govc {
		req.Govc = append(req.Govc, govcFile("", arg, arg))
	}
	for _, arg := range o.GovcFrom {
		vc, rest, ok := strings.Cut(arg, "=")
		if !ok || vc == "" || rest == "" {
			return req, usagef("--govc-from %q: expected VCENTER=[VMNAME=]FILE", arg)
		}
		req.Govc = append(req.Govc, govcFile(vc, rest, arg))
	}
	for _, raw := range o.VCenters {
		req.VCenters = append(req.VCenters, plan.VCenterTarget{URL: raw, FromEnv: raw == "env"})
	}
	if len(o.VCenters) > 0 { // govc's conventions: credentials from the environment only
		getenv := os.Getenv
		req.Env = plan.GovcEnv{URL: getenv("GOVC_URL"), Username: getenv("GOVC_USERNAME"), Password: getenv("GOVC_PASSWORD"),
			Insecure: getenv("GOVC_INSECURE"), Datacenter: getenv("GOVC_DATACENTER")}
	}
	return req, nil
}

// govcFile reads a --govc value, [VMNAME=]FILE: a name before '=' that
// is no path names the VM of a one-VM output.
func govcFile(vcenter, arg, given string) plan.GovcFile {
	f := plan.GovcFile{File: arg, VCenter: vcenter, Given: given}
	if k, v, ok := strings.Cut(arg, "="); ok && !strings.ContainsAny(k, "/\\") {
		f.VM, f.File = k, v
	}
	return f
}

// importReleaseFrom says where the target release came from, for the
// line runPlanImport says.
func importReleaseFrom(r plan.ImportResult) string {
	switch {
	case r.From == plan.ReleasePinned:
		return "--nova-release"
	case r.From == plan.ReleaseDefault:
		return "the default; --nova-release or --os-cloud to target another"
	case r.CloudName != "":
		return "cloud " + r.CloudName
	}
	return "the cloud's"
}

// importInputFlags name plan import's inputs.
var importInputFlags = map[plan.Input]string{plan.InputRVTools: "--rvtools", plan.InputGovc: "--govc", plan.InputGovcFrom: "--govc-from", plan.InputCatalogue: "--flavors"}

// importInWords words plan import's typed errors with its flags.
func importInWords(err error) error {
	var (
		re *plan.ReleaseError
		in *plan.InputError
		vc *plan.VCenterError
		te *vsphere.TimeoutError
	)
	switch {
	case errors.As(err, &re):
		return fmt.Errorf("plan import: the target release: %w", inWords(re.Err, flagName))
	case errors.As(err, &in):
		return inputInWords(in)
	case errors.As(err, &vc):
		return vcenterInWords(vc)
	case errors.As(err, &te):
		return fmt.Errorf("%w (--timeout; raise it if this vCenter is only slow)", err)
	}
	return inWords(err, flagName)
}

// inputInWords: an input that could not be read is a usage error named
// by its flag; a bad row names its file and line itself.
func inputInWords(e *plan.InputError) error {
	var (
		col     *migration.ColumnError
		row     *migration.RowError
		unnamed *migration.UnnamedVMError
	)
	switch {
	case errors.As(e.Err, &col):
		return &usageError{msg: col.Message("--vtpm-column"), err: e.Err}
	case errors.As(e.Err, &row):
		return usagef("%w", e.Err)
	case errors.As(e.Err, &unnamed):
		return &usageError{msg: importInputFlags[e.Input] + ": " + unnamed.Message("--govc VMNAME="+unnamed.File), err: e.Err}
	}
	return usagef("%s: %w", importInputFlags[e.Input], e.Err)
}

// vcenterInWords words a --vcenter that cannot be used.
func vcenterInWords(e *plan.VCenterError) error {
	switch e.Problem {
	case plan.BadInsecure:
		return usagef("GOVC_INSECURE=%q: use 1 or 0", quote.OneLine(e.Value))
	case plan.URLUnset:
		return usagef("--vcenter env: GOVC_URL is not set")
	case plan.NotAURL:
		return usagef("--vcenter %q is not a URL", quote.OneLine(e.Value))
	case plan.CredentialsGiven:
		return usagef("--vcenter: credentials never go on the command line; set GOVC_USERNAME and GOVC_PASSWORD")
	}
	return usagef("--vcenter %s: set GOVC_USERNAME and GOVC_PASSWORD", e.Value)
}
