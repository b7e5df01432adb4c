package secureboot

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/uefi"
	"github.com/vtpmctl/vtpmctl/internal/fileout"
)

// UpdateSchema names the JSON of `host secure-boot update`.
const UpdateSchema = "vtpmctl.host-secure-boot-update/1"

// UpdateRequest selects the files: Servers (domains of this host, by
// Nova's instance UUID), AllStopped (every stopped guest whose file lacks
// the 2023 certificates), or NVRAM (one file, neither libvirt nor Nova
// asked). Exactly one is set; the caller checks.
type UpdateRequest struct {
	Servers    []string
	AllStopped bool
	NVRAM      string
	Host       hostcheck.Options
	DryRun     bool
	Connect    Connect   // nil: the real libvirt
	Now        time.Time // the variables' timestamp and the backup's name (zero: now)
	// Confirm is asked, after every file was planned and none refused,
	// with the files to be written; an error ends the update, nothing
	// written. nil: no question.
	Confirm func(context.Context, []FileUpdate) error
}

// UpdateResult is what update did, or would do, with each file.
type UpdateResult struct {
	Schema      string             `json:"schema"`
	DryRun      bool               `json:"dry_run"`
	Host        string             `json:"host,omitempty"`
	NovaRelease nova.Release       `json:"nova_release,omitempty"`
	NVRAMKept   hostcheck.TriState `json:"nvram_kept,omitempty"`
	Files       []FileUpdate       `json:"files"`
	Summary     UpdateSummary      `json:"summary"`
}

// Action is what update did with one file.
type Action string

const (
	ActUpdated     Action = "updated"
	ActWouldUpdate Action = "would update"
	ActUnchanged   Action = "unchanged" // nothing missing: nothing written
	ActSkipped     Action = "skipped"   // not selected (all stopped guests: running, nothing to add, …)
	ActRefused     Action = "refused"
	ActFailed      Action = "failed"
)

// FileUpdate is one variable file and its outcome.
type FileUpdate struct {
	Domain     string                `json:"domain,omitempty"`
	UUID       string                `json:"uuid,omitempty"`
	ServerName string                `json:"server_name,omitempty"`
	State      hostcheck.DomainState `json:"state,omitempty"`
	NVRAM      string                `json:"nvram"`
	Action     Action                `json:"action"`
	Refusal    Refusal               `json:"refusal,omitempty"`
	Added      []Addition            `json:"added"`
	// LeftOut: 2023 certificates the store lacks that are not added,
	// because Microsoft's own servicing would not add them to it.
	LeftOut []LeftOut `json:"left_out,omitempty"`
	// BytesBefore and BytesAfter: the store's bytes in use; StoreSize:
	// its capacity.
	BytesBefore int `json:"bytes_before,omitempty"`
	BytesAfter  int `json:"bytes_after,omitempty"`
	StoreSize   int `json:"store_size,omitempty"`
	// Compacted: the store had to be rewritten with its live records
	// only (as the firmware's reclaim does) to make room.
	Compacted bool   `json:"compacted,omitempty"`
	Backup    string `json:"backup,omitempty"` // the original, kept beside it
	Detail    string `json:"detail,omitempty"`

	file          string // where it is on this machine
	before, after []byte
	info          os.FileInfo
	dir           *fileout.Dir // its directory, opened when planned
	name          string       // its name in dir
	planned       []uefi.CertAddition
}

// Name is the file's guest and path, for a line about it.
func (f FileUpdate) Name() string {
	if f.Domain == "" {
		return f.NVRAM
	}
	return fmt.Sprintf("%s (%s) %s", f.Domain, f.UUID, f.NVRAM)
}

// UpdateSummary counts the files by action.
type UpdateSummary struct {
	Updated     int `json:"updated"`
	WouldUpdate int `json:"would_update"`
	Unchanged   int `json:"unchanged"`
	Skipped     int `json:"skipped"`
	Refused     int `json:"refused"`
	Failed      int `json:"failed"`
}

// Update adds Microsoft's 2023 certificates to the selected variable
// files: every file is planned first (read, checked, the new content
// built and verified in memory), and if any is refused nothing is
// written (*RefusedError). Then, unless DryRun, each is written: backup
// beside it, atomic replace keeping owner, group and mode, re-read and
// verified (*FailedError when one fails; the original is put back).
func Update(ctx context.Context, req UpdateRequest) (UpdateResult, error) {
	now := req.Now
	if now.IsZero() {
		now = time.Now()
	}
	res := UpdateResult{Schema: UpdateSchema, DryRun: req.DryRun, Files: []FileUpdate{}}
	defer func() {
		for i := range res.Files {
			res.Files[i].dir.Close()
		}
	}()
	var h *hostcheck.NVRAMHost
	if req.NVRAM != "" {
		f := FileUpdate{NVRAM: req.NVRAM, Added: []Addition{}, file: req.NVRAM}
		if real, err := filepath.EvalSymlinks(req.NVRAM); err == nil {
			f.file = real
		}
		plan(&f, now)
		res.Files = append(res.Files, f)
	} else {
		var err error
		if h, err = hostcheck.GatherNVRAMHost(ctx, req.Host); err != nil {
			return res, &HostError{Err: err}
		}
		res.Host, res.NovaRelease, res.NVRAMKept = h.Host, h.Release, h.NVRAMKept
		if res.Files, err = planHost(ctx, req, h, now); err != nil {
			return res, err
		}
	}
	res.count()
	if refused := res.with(ActRefused); len(refused) > 0 {
		return res, &RefusedError{Files: refused}
	}
	if failed := res.with(ActFailed); len(failed) > 0 {
		return res, &FailedError{Files: failed} // a plan that did not verify: nothing written
	}
	todo := res.with(ActWouldUpdate)
	if req.DryRun || len(todo) == 0 {
		return res, ctx.Err()
	}
	if req.Confirm != nil {
		if err := req.Confirm(ctx, todo); err != nil {
			return res, err
		}
	}
	for i := range res.Files {
		f := &res.Files[i]
		if f.Action != ActWouldUpdate {
			continue
		}
		if ctx.Err() != nil {
			f.Action, f.Detail = ActFailed, "interrupted before it was written; untouched"
			continue
		}
		write(f, req, h, now)
	}
	res.count()
	if failed := res.with(ActFailed); len(failed) > 0 {
		return res, &FailedError{Files: failed}
	}
	return res, nil
}

// plan reads f's file and builds its new content in memory, verified:
// f.Action becomes would update, unchanged or refused.
func plan(f *FileUpdate, now time.Time) {
	b, info, busy, err := openPlanned(f)
	if err != nil {
		f.Action, f.Refusal, f.Detail = ActRefused, RefuseUnreadable, err.Error()
		return
	}
	if busy != nil {
		f.Action, f.Refusal, f.Detail = ActRefused, RefuseInUse, busy.Error()
		return
	}
	if siteKeysOnly(b) {
		f.Action, f.Refusal, f.Detail = ActRefused, RefuseSiteKeys, "the store enrols the site's own keys and no Microsoft certificate: Microsoft's would widen what it boots, so none is added"
		return
	}
	after, upd, err := uefi.AddMicrosoft2023(b, now)
	if err != nil {
		r := refusalOf(err)
		f.Action, f.Refusal, f.Detail = ActRefused, r.kind, r.detail
		return
	}
	f.LeftOut = leftOut(upd.Skipped)
	f.Added, f.BytesBefore, f.BytesAfter, f.StoreSize, f.Compacted = additions(upd.Added), upd.BytesBefore, upd.BytesAfter, upd.StoreSize, upd.Compacted
	if len(upd.Added) == 0 {
		f.Action, f.Detail = ActUnchanged, "the 2023 certificates are all there: nothing written"
		return
	}
	if err := verify(b, after); err != nil {
		f.Action, f.Detail = ActFailed, "the new content did not verify, so it is not written: "+err.Error()
		return
	}
	f.before, f.after, f.info, f.planned = b, after, info, upd.Added
	f.Action, f.Detail = ActWouldUpdate, fmt.Sprintf("the store would use %d of %d bytes (now %d)", upd.BytesAfter, upd.StoreSize, upd.BytesBefore)
}

// openPlanned opens f's directory (kept in f.dir for the write: the
// path is resolved this once) and reads the file through it. busy is
// why it is in use (a lock held), or nil.
func openPlanned(f *FileUpdate) (b []byte, info os.FileInfo, busy, err error) {
	if f.file == "" {
		return nil, nil, nil, errors.New("no NVRAM file")
	}
	if f.dir, err = fileout.OpenDir(filepath.Dir(f.file)); err != nil {
		return nil, nil, nil, err
	}
	f.name = filepath.Base(f.file)
	r, err := f.dir.Open(f.name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, nil, err
	}
	defer r.Close()
	if b, info, err = readOpen(r); err != nil {
		return nil, nil, nil, err
	}
	switch locked, lerr := inUse(r); {
	case lerr != nil:
		busy = fmt.Errorf("its locks could not be read: %v", lerr)
	case locked:
		busy = errors.New("another process holds a lock on the file (a running QEMU does): stop the guest first")
	}
	return b, info, busy, nil
}

// LeftOut is a 2023 certificate not added, and why.
type LeftOut struct {
	Variable string `json:"variable"`
	Subject  string `json:"subject"`
	Reason   string `json:"reason"`
}

func leftOut(l []uefi.CertSkip) []LeftOut {
	var out []LeftOut
	for _, c := range l {
		out = append(out, LeftOut{Variable: c.Variable, Subject: c.Subject, Reason: c.Reason})
	}
	return out
}

// siteKeysOnly: host check's class "other", keys enrolled but none of
// Microsoft's.
func siteKeysOnly(b []byte) bool {
	vs, err := uefi.ReadVarStore(b)
	if err != nil {
		return false // AddMicrosoft2023 says what it is
	}
	sb, err := vs.SecureBoot()
	c, _ := hostcheck.CertsOf("file", sb, err)
	return c == hostcheck.CertsOther
}

func (r *UpdateResult) with(a Action) []FileUpdate {
	var out []FileUpdate
	for _, f := range r.Files {
		if f.Action == a {
			out = append(out, f)
		}
	}
	return out
}

func (r *UpdateResult) count() {
	s := UpdateSummary{}
	for _, f := range r.Files {
		switch f.Action {
		case ActUpdated:
			s.Updated++
		case ActWouldUpdate:
			s.WouldUpdate++
		case ActUnchanged:
			s.Unchanged++
		case ActSkipped:
			s.Skipped++
		case ActRefused:
			s.Refused++
		case ActFailed:
			s.Failed++
		}
	}
	r.Summary = s
}
