package secureboot

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/vtpmctl/vtpmctl/app/secureboot/sbtest"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/uefi"
)

const (
	uuidA = "6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d11"
	uuidB = "0b9e8d2c-1111-4c51-9a4f-3a8f0f1a6d22"
	uuidC = "7a7a7a7a-2222-4c51-9a4f-3a8f0f1a6d33"
)

// TestUpdateFile: one file, by path: the 2023 certificates added and
// verified, a backup of the original beside it with the file's owner,
// group and mode, which the new file keeps too; a rerun writes nothing.
func TestUpdateFile(t *testing.T) {
	dir := t.TempDir()
	orig := store2011(t)
	p := writeFile(t, dir, "guest_VARS.fd", orig)
	if err := os.Chown(p, 4242, 4343); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	res, err := Update(context.Background(), UpdateRequest{NVRAM: p, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	f := res.Files[0]
	if f.Action != ActUpdated || len(f.Added) != 4 || res.Summary.Updated != 1 {
		t.Fatalf("got %+v", res)
	}
	if want := p + ".vtpmctl-20260701T120000Z.bak"; f.Backup != want {
		t.Errorf("backup %q, want %q", f.Backup, want)
	}
	got, _ := os.ReadFile(p)
	if err := verify(orig, got); err != nil {
		t.Errorf("the written file does not verify: %v", err)
	}
	if bak, _ := os.ReadFile(f.Backup); !bytes.Equal(bak, orig) {
		t.Error("the backup is not the original")
	}
	for _, q := range []string{p, f.Backup} {
		if uid, gid, perm := owner(t, q); uid != 4242 || gid != 4343 || perm != 0o640 {
			t.Errorf("%s: %d:%d %o, want 4242:4343 640", q, uid, gid, perm)
		}
	}
	sb := secureBootOf(t, got)
	for _, c := range uefi.Microsoft2023() {
		l := sb.DB
		if c.Variable == "KEK" {
			l = sb.KEK
		}
		if !l.Has(c.Subject) {
			t.Errorf("%s lacks %s", c.Variable, c.Subject)
		}
	}
	if !sb.KEK.Has("Microsoft Corporation KEK CA 2011") || !sb.DB.Has("Microsoft Windows Production PCA 2011") || sb.DBX.SHA256 != 1 {
		t.Error("an entry that was there is gone")
	}

	// Rerun: nothing missing, nothing written, no second backup.
	before := stat(t, p)
	res, err = Update(context.Background(), UpdateRequest{NVRAM: p, Now: now.Add(1e9)})
	if err != nil || res.Files[0].Action != ActUnchanged || res.Files[0].Backup != "" || res.Summary.Unchanged != 1 {
		t.Fatalf("rerun: %+v %v", res, err)
	}
	if after := stat(t, p); !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Error("the rerun rewrote the file")
	}
	if baks, _ := filepath.Glob(p + ".vtpmctl-*.bak"); len(baks) != 1 {
		t.Errorf("backups after the rerun: %v", baks)
	}
}

// TestUpdateDryRunWritesNothing: a dry run plans (what would be added)
// and leaves the file, its time and its directory as they were.
func TestUpdateDryRunWritesNothing(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "guest_VARS.fd", store2011(t))
	before := stat(t, p)
	res, err := Update(context.Background(), UpdateRequest{NVRAM: p, Now: now, DryRun: true,
		Confirm: func(context.Context, []FileUpdate) error { t.Error("a dry run asked"); return nil }})
	if err != nil || res.Files[0].Action != ActWouldUpdate || len(res.Files[0].Added) != 4 || !res.DryRun {
		t.Fatalf("%+v %v", res, err)
	}
	if res.Files[0].BytesAfter <= res.Files[0].BytesBefore || res.Files[0].StoreSize != 64<<10-28 {
		t.Errorf("sizes %+v", res.Files[0])
	}
	if after := stat(t, p); !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Error("the dry run touched the file")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("the dry run left %d entries in the directory", len(ents))
	}
}

// TestUpdateFileRefusals: each file update refuses to write, exit 2's
// error, the file byte for byte as it was and nothing beside it.
func TestUpdateFileRefusals(t *testing.T) {
	for _, c := range []struct {
		name string
		file func(testing.TB) []byte
		lock bool
		want Refusal
		says string
	}{
		{"plain store", storePlain, false, RefuseNotAuthenticated, "not an authenticated variable store"},
		{"not a store", func(testing.TB) []byte { return bytes.Repeat([]byte("MZ"), 1000) }, false, RefuseNotAuthenticated, "not an OVMF variable file"},
		{"setup mode", storeSetupMode, false, RefuseSetupMode, "no PK (setup mode)"},
		{"the site's own keys", func(testing.TB) []byte { return sbtest.StoreSiteKeys() }, false, RefuseSiteKeys, "no Microsoft certificate"},
		{"no room", storeFull, false, RefuseNoRoom, "bytes free"},
		{"in use by a QEMU", store2011, true, RefuseInUse, "another process holds a lock"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			orig := c.file(t)
			p := writeFile(t, dir, "guest_VARS.fd", orig)
			if c.lock {
				qemuLock(t, p)
			}
			res, err := Update(context.Background(), UpdateRequest{NVRAM: p, Now: now,
				Confirm: func(context.Context, []FileUpdate) error { t.Error("asked before refusing"); return nil }})
			var re *RefusedError
			if !errors.As(err, &re) || res.Files[0].Refusal != c.want || !strings.Contains(err.Error(), c.says) || !strings.HasSuffix(err.Error(), "; nothing was written") {
				t.Fatalf("got %v (%+v), want a %s refusal saying %q", err, res.Files, c.want, c.says)
			}
			untouched(t, dir, p, orig)
		})
	}
	t.Run("not a regular file", func(t *testing.T) {
		dir := t.TempDir()
		fifo := filepath.Join(dir, "guest_VARS.fd")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Update(context.Background(), UpdateRequest{NVRAM: fifo, Now: now})
		var re *RefusedError
		if !errors.As(err, &re) || re.Files[0].Refusal != RefuseUnreadable || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("a FIFO: %v", err)
		}
	})
}

// TestUpdateHost: domains selected by Nova's instance UUID on a host
// whose Nova keeps NVRAM; each refusal leaves every file untouched.
func TestUpdateHost(t *testing.T) {
	for _, c := range []struct {
		name    string
		rel     nova.Release
		state   hostcheck.DomainState
		saved   bool
		servers []string
		want    Refusal
		says    string
	}{
		{"running", nova.Gazpacho, hostcheck.DomainRunning, false, []string{uuidA}, RefuseRunning, "the domain is running: stop it first"},
		{"paused", nova.Gazpacho, hostcheck.DomainPaused, false, []string{uuidA}, RefuseRunning, "the domain is paused"},
		{"suspended by Nova", nova.Gazpacho, hostcheck.DomainShutOff, true, []string{uuidA}, RefuseManagedSave, "saved state"},
		{"Nova recreates NVRAM", nova.Zed, hostcheck.DomainShutOff, false, []string{uuidA}, RefuseNovaRecreates, "ovmf 2026.08 (forky)"},
		{"Nova's verdict unknown", nova.Epoxy, hostcheck.DomainShutOff, false, []string{uuidA}, RefuseNovaUnknown, "31.3.0, 32.2.0, 33.0.0"},
		{"one of two running", nova.Gazpacho, hostcheck.DomainRunning, false, []string{uuidB, uuidA}, RefuseRunning, "the domain is running"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHost(t, c.rel)
			orig := store2011(t)
			pa := h.guest(t, "instance-0000000a", uuidA, c.state, orig)
			pb := h.guest(t, "instance-0000000b", uuidB, hostcheck.DomainShutOff, orig)
			h.lv.Saved[uuidA] = c.saved
			res, err := Update(context.Background(), UpdateRequest{Servers: c.servers, Host: h.options(), Connect: connect(h.lv), Now: now})
			var re *RefusedError
			if !errors.As(err, &re) || re.Files[0].Refusal != c.want || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "instance-0000000a ("+uuidA+")") {
				t.Fatalf("got %v, want a %s refusal saying %q", err, c.want, c.says)
			}
			if len(c.servers) == 2 && (res.Summary.Refused != 1 || res.Summary.WouldUpdate != 1) {
				t.Errorf("summary %+v", res.Summary)
			}
			untouched(t, filepath.Dir(pa), pa, orig, filepath.Base(pb))
			untouched(t, filepath.Dir(pb), pb, orig, filepath.Base(pa))
		})
	}
	t.Run("unknown server", func(t *testing.T) {
		h := newHost(t, nova.Gazpacho)
		h.guest(t, "instance-0000000a", uuidA, hostcheck.DomainShutOff, store2011(t))
		_, err := Update(context.Background(), UpdateRequest{Servers: []string{uuidC}, Host: h.options(), Connect: connect(h.lv), Now: now})
		var nf *NotFoundError
		if !errors.As(err, &nf) || !strings.Contains(err.Error(), uuidC+" on this host (cmp1)") {
			t.Fatalf("got %v", err)
		}
	})
}

// TestUpdateHostWrites: a stopped guest on a host that keeps NVRAM is
// written after the confirmation, its state asked again just before; a
// guest started between the plan and the write is not written.
func TestUpdateHostWrites(t *testing.T) {
	h := newHost(t, nova.Gazpacho)
	orig := store2011(t)
	pa := h.guest(t, "instance-0000000a", uuidA, hostcheck.DomainShutOff, orig)
	pb := h.guest(t, "instance-0000000b", uuidB, hostcheck.DomainShutOff, orig)
	h.lv.After = map[string]hostcheck.DomainState{uuidB: hostcheck.DomainRunning}
	asked := 0
	res, err := Update(context.Background(), UpdateRequest{Servers: []string{uuidA, uuidB}, Host: h.options(), Connect: connect(h.lv), Now: now,
		Confirm: func(_ context.Context, fs []FileUpdate) error { asked = len(fs); return nil }})
	var fe *FailedError
	if !errors.As(err, &fe) || asked != 2 || res.Summary.Updated != 1 || res.Summary.Failed != 1 {
		t.Fatalf("got %v, asked %d, %+v", err, asked, res.Summary)
	}
	if !strings.Contains(fe.Files[0].Detail, "running now, started since it was planned: not written, untouched") {
		t.Errorf("detail %q", fe.Files[0].Detail)
	}
	if got, _ := os.ReadFile(pa); verify(orig, got) != nil || bytes.Equal(got, orig) {
		t.Error("the stopped guest's file was not updated")
	}
	untouched(t, filepath.Dir(pb), pb, orig, filepath.Base(pa), filepath.Base(res.Files[0].Backup))
	if h.lv.Closed != h.lv.Conns {
		t.Errorf("%d libvirt connections, %d closed", h.lv.Conns, h.lv.Closed)
	}

	// Declined: nothing written.
	h2 := newHost(t, nova.Gazpacho)
	pc := h2.guest(t, "instance-0000000c", uuidC, hostcheck.DomainShutOff, orig)
	no := errors.New("not confirmed")
	if _, err := Update(context.Background(), UpdateRequest{Servers: []string{uuidC}, Host: h2.options(), Connect: connect(h2.lv), Now: now,
		Confirm: func(context.Context, []FileUpdate) error { return no }}); err != no {
		t.Fatalf("declined: %v", err)
	}
	untouched(t, filepath.Dir(pc), pc, orig)
}

// TestUpdateAllStopped: every stopped guest that lacks the 2023
// certificates; the running, the updated and the keyless are skipped,
// saying why, and a BIOS guest is not listed.
func TestUpdateAllStopped(t *testing.T) {
	h := newHost(t, nova.Gazpacho)
	pa := h.guest(t, "instance-0000000a", uuidA, hostcheck.DomainShutOff, store2011(t))
	h.guest(t, "instance-0000000b", uuidB, hostcheck.DomainRunning, store2011(t))
	h.guest(t, "instance-0000000c", uuidC, hostcheck.DomainShutOff, store2023(t))
	h.guest(t, "instance-0000000d", "dddddddd-0000-4000-8000-000000000004", hostcheck.DomainShutOff, storeSetupMode(t))
	h.guest(t, "instance-0000000e", "eeeeeeee-0000-4000-8000-000000000005", hostcheck.DomainShutOff, nil)
	res, err := Update(context.Background(), UpdateRequest{AllStopped: true, Host: h.options(), Connect: connect(h.lv), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"instance-0000000a": "updated: written, read back and verified",
		"instance-0000000b": "skipped: the domain is running",
		"instance-0000000c": "skipped: 2023: the 2023 certificates are enrolled",
		"instance-0000000d": "skipped: no-keys: no PK (setup mode)",
	}
	if len(res.Files) != len(want) {
		t.Errorf("%d files listed, want %d: %+v", len(res.Files), len(want), res.Files)
	}
	for _, f := range res.Files {
		if got := string(f.Action) + ": " + f.Detail; !strings.HasPrefix(got, want[f.Domain]) || want[f.Domain] == "" {
			t.Errorf("%s: %q, want %q…", f.Domain, got, want[f.Domain])
		}
	}
	if got, _ := os.ReadFile(pa); verify(store2011(t), got) != nil {
		t.Errorf("instance-0000000a's file does not verify: %v", verify(store2011(t), got))
	}
	if res.Summary.Updated != 1 || res.Summary.Skipped != 3 {
		t.Errorf("summary %+v", res.Summary)
	}
}
