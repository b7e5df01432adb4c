package plan

import (
	"context"
	"io"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/advice"
	"github.com/vtpmctl/vtpmctl/domain/migration"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/infile"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
)

// ImportRequest is one plan import: where the inventory is (files, or
// vCenters), the flavor catalogue and the target release.
type ImportRequest struct {
	// RVTools is an RVTools vInfo CSV file ("": none); VTPMColumn is its
	// custom attribute column that says whether a VM has a vTPM; Strict
	// makes a malformed row fatal.
	RVTools    string
	VTPMColumn string
	Strict     bool
	// Govc are govc JSON files: joined to the export's VMs, or without an
	// export, the inventory.
	Govc []GovcFile
	// VCenters are read instead of files, with Env's credentials (never
	// from the command line); Timeout bounds each vCenter request.
	VCenters []VCenterTarget
	Env      GovcEnv
	Timeout  time.Duration
	// Catalogue is a flavor catalogue file; CatalogueFromCloud takes the
	// cloud's flavors instead; neither: every VM gets a proposed flavor.
	Catalogue          string
	CatalogueFromCloud bool
	TPMModel           string // the target vTPMs' model
	// Release is the caller's pinned release and its field; unknown: the
	// cloud's when Cloud (a cloud is named) or CatalogueFromCloud, else
	// migration.DefaultRelease.
	Release nova.ReleaseEvidence
	Cloud   bool
	// Words spell the options the plan's reasons point to
	// (migration.OptionVTPMColumn); nil: they name none.
	Words advice.Words
}

// GovcFile is one govc JSON file.
type GovcFile struct {
	File string
	// VM names the VM of a one-VM output (device.info, object.collect).
	VM string
	// VCenter is the vCenter the file was taken from ("": not said):
	// govc's JSON does not say, and MoRefs repeat across vCenters.
	VCenter string
	// Given is the file as the caller named it, recorded in the plan's
	// source.
	Given string
}

// Connect opens the cloud's session when the import needs one (the
// cloud's release, its flavors): an import from files with a pinned
// release never connects. Import calls it at most once.
type Connect func(context.Context) (*cloud.Session, error)

// ReleaseSource says where the target release came from.
type ReleaseSource int

const (
	ReleaseUnsettled ReleaseSource = iota // an error came first
	ReleasePinned                         // the request's
	ReleaseDefault                        // migration.DefaultRelease: no cloud named, none pinned
	ReleaseFromCloud                      // the cloud's (ImportResult.CloudName)
)

// ImportResult is the inventory read and the choices settled; Write
// writes the plan from them.
type ImportResult struct {
	VMs       []migration.SourceVM // each with the warnings of its row
	Skipped   []migration.Skipped
	RowErrors []error  // malformed rows, skipped
	Unmatched []string // govc VMs that are no VM of the export: ignored
	Catalogue []migration.PlanFlavor
	Release   nova.Release
	From      ReleaseSource
	CloudName string               // the session's cloud, when From the cloud
	Resolved  nova.ResolvedRelease // how the cloud's release was settled, for the caller's warning
	req       ImportRequest
}

// Import settles the target release, reads the inventory (the export and
// govc files joined, or the vCenters) and the flavor catalogue. The result
// holds what was read when an error stops it (the release settled, the
// govc VMs left unmatched), for the caller to say.
func Import(ctx context.Context, connect Connect, req ImportRequest) (ImportResult, error) {
	res := ImportResult{req: req}
	if err := nova.ValidateTPM("2.0", req.TPMModel); err != nil {
		return res, err
	}
	var sess *cloud.Session
	open := func() (*cloud.Session, error) {
		if sess != nil {
			return sess, nil
		}
		s, err := connect(ctx)
		sess = s
		return s, err
	}
	if err := res.settleRelease(ctx, open); err != nil {
		return res, err
	}
	if err := res.readInventory(ctx); err != nil {
		return res, err
	}
	cat, err := readCatalogue(ctx, open, req)
	res.Catalogue = cat
	return res, err
}

// ReleaseError: the cloud's release could not be settled.
type ReleaseError struct{ Err error }

func (e *ReleaseError) Error() string { return "the target release: " + e.Err.Error() }
func (e *ReleaseError) Unwrap() error { return e.Err }

// settleRelease: the pinned release, else the named cloud's (a Zed cloud
// must not be offered hw:tpm_secret_security, which its Nova does not
// know), else the default.
func (r *ImportResult) settleRelease(ctx context.Context, open func() (*cloud.Session, error)) error {
	switch {
	case r.req.Release.Flag != nova.ReleaseUnknown:
		r.Release, r.From = r.req.Release.Flag, ReleasePinned
		return nil
	case !r.req.Cloud && !r.req.CatalogueFromCloud:
		r.Release, r.From = migration.DefaultRelease, ReleaseDefault
		return nil
	}
	sess, err := open()
	if err != nil {
		return err
	}
	c, err := sess.Compute()
	if err != nil {
		return err
	}
	res, err := compute.ResolveRelease(ctx, c, r.req.Release, false)
	if err != nil {
		return &ReleaseError{err}
	}
	r.Release, r.From, r.Resolved, r.CloudName = res.Release, ReleaseFromCloud, res, sess.CloudName
	return nil
}

// Input is one of the import's inputs, for the caller to name.
type Input string

const (
	InputRVTools   Input = "rvtools"   // the RVTools export
	InputGovc      Input = "govc"      // a govc file
	InputGovcFrom  Input = "govc_from" // a govc file given with its vCenter
	InputCatalogue Input = "catalogue" // the flavor catalogue file
)

// InputError is an input that could not be read or is malformed: the
// caller's usage error, which it words with its name for Input.
type InputError struct {
	Input Input
	Err   error
}

func (e *InputError) Error() string { return string(e.Input) + ": " + e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// readInventory reads the vCenters, or the RVTools export and the govc
// files, joined.
func (r *ImportResult) readInventory(ctx context.Context) error {
	req := r.req
	if len(req.VCenters) > 0 {
		return r.readVCenters(ctx)
	}
	if req.RVTools != "" {
		f, err := infile.Open(req.RVTools, 0)
		if err != nil {
			return &InputError{InputRVTools, err}
		}
		r.VMs, r.Skipped, r.RowErrors, err = migration.ParseRVTools(f, migration.RVToolsOptions{File: req.RVTools, VTPMColumn: req.VTPMColumn, Strict: req.Strict})
		f.Close()
		if err != nil {
			return &InputError{InputRVTools, err}
		}
	}
	var govc []migration.GovcVM
	for _, f := range req.Govc {
		in := InputGovc
		if f.VCenter != "" {
			in = InputGovcFrom
		}
		data, err := infile.ReadFile(f.File, 0)
		if err != nil {
			return &InputError{in, err}
		}
		g, err := migration.ParseGovc(data, f.VM, f.File)
		if err != nil {
			return &InputError{in, err}
		}
		for i := range g {
			g[i].VCenter = f.VCenter
		}
		govc = append(govc, g...)
	}
	r.Skipped = append(r.Skipped, migration.GovcTemplates(govc)...)
	r.VMs, r.Unmatched = migration.JoinGovc(r.VMs, govc, req.RVTools == "")
	return nil
}

// readCatalogue is the flavor catalogue to map onto: a file, the cloud's
// flavors, or none (every VM gets a proposed flavor).
func readCatalogue(ctx context.Context, open func() (*cloud.Session, error), req ImportRequest) ([]migration.PlanFlavor, error) {
	switch {
	case req.Catalogue != "":
		f, err := infile.Open(req.Catalogue, 0)
		if err != nil {
			return nil, &InputError{InputCatalogue, err}
		}
		defer f.Close()
		cat, err := migration.ReadCatalogue(f, req.Catalogue)
		if err != nil {
			return nil, &InputError{InputCatalogue, err}
		}
		return cat, nil
	case req.CatalogueFromCloud:
		sess, err := open()
		if err != nil {
			return nil, err
		}
		c, err := sess.Compute()
		if err != nil {
			return nil, err
		}
		return CatalogueFromCloud(ctx, c)
	}
	return nil, nil
}

// Write writes the plan, VM by VM (migration.WriteImport: memory stays
// flat however large the inventory), below the caller's header lines;
// ctx stops it. The summary counts the skipped and malformed rows too.
func (r *ImportResult) Write(ctx context.Context, w io.Writer, header []string) (migration.ImportSummary, error) {
	given := make([]string, 0, len(r.req.Govc))
	for _, f := range r.req.Govc {
		given = append(given, f.Given)
	}
	o := migration.ImportOptions{Catalogue: r.Catalogue, TPMModel: r.req.TPMModel, Release: r.Release, Now: time.Now(), Words: r.req.Words, Header: header}
	sum, err := migration.WriteImport(ctx, w, r.VMs, o, migration.PlanSource{RVTools: r.req.RVTools, Govc: given, NovaRelease: r.Release})
	sum.Skipped, sum.RowErrors = len(r.Skipped), len(r.RowErrors)
	return sum, err
}
