package fileout

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/redact"
)

func hello(w io.Writer) error { _, err := io.WriteString(w, "hello\n"); return err }

var ctx = context.Background()

// TestCharDeviceKept: a character device (a /dev/null made with mknod)
// is written through, never replaced by a regular file.
func TestCharDeviceKept(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mknod needs root (CI runs as root)")
	}
	dir := t.TempDir()
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link-to-null")
	os.Symlink(null, link)
	for _, p := range []string{null, link} {
		if err := Write(ctx, p, Public, nil, hello); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		st, err := os.Stat(null)
		if err != nil || st.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("%s: the device was replaced: %v %v", p, st.Mode(), err)
		}
	}
	if l, _ := os.Lstat(link); l.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*tmp")); len(left) > 0 {
		t.Errorf("temp files left: %v", left)
	}
}

func TestFIFOWrittenInPlace(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	got := make(chan []byte)
	go func() {
		f, _ := os.Open(fifo)
		b, _ := io.ReadAll(f)
		f.Close()
		got <- b
	}()
	if err := Write(ctx, fifo, Public, nil, hello); err != nil {
		t.Fatal(err)
	}
	if b := <-got; string(b) != "hello\n" {
		t.Errorf("read %q", b)
	}
	if st, _ := os.Lstat(fifo); st.Mode()&os.ModeNamedPipe == 0 {
		t.Error("the FIFO was replaced")
	}
}

func TestRegularFileAtomicAndUmask(t *testing.T) {
	dir := t.TempDir()
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	p := filepath.Join(dir, "out.xml")
	os.WriteFile(p, []byte("old"), 0o600)
	boom := errors.New("boom")
	if err := Write(ctx, p, Public, nil, func(w io.Writer) error { io.WriteString(w, "half"); return boom }); err != boom {
		t.Fatalf("err %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("failed write changed the file: %q", b)
	}
	if err := Write(ctx, p, Public, nil, hello); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("umask 077 not respected: %v", st.Mode())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("temp files left: %v", left)
	}
}

// TestPlantedTempSymlink: the old predictable PATH.tmp is not used, and a
// planted symlink there is not followed.
func TestPlantedTempSymlink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("precious"), 0o600)
	p := filepath.Join(dir, "junit.xml")
	os.Symlink(victim, p+".tmp")
	if err := Write(ctx, p, Public, nil, hello); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("victim overwritten: %q", b)
	}
}

func TestStdoutAndDirectory(t *testing.T) {
	var b bytes.Buffer
	if err := Write(ctx, "-", Public, &b, hello); err != nil || b.String() != "hello\n" {
		t.Errorf("stdout: %v %q", err, b.String())
	}
	if err := Write(ctx, t.TempDir(), Public, nil, hello); err == nil {
		t.Error("a directory was accepted")
	}
}

// TestReplaceKeepsAccess: replacing a file keeps its permission bits and
// group (never wider than asked for); a new file gets today's defaults.
func TestReplaceKeepsAccess(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	root := os.Geteuid() == 0
	for _, tc := range []struct {
		name      string
		perm      os.FileMode // 0: no old file
		gid       int         // -1: leave the group
		mode      os.FileMode
		wantPerm  os.FileMode
		needsRoot bool
	}{
		{"0600 plan with group 1", 0o600, 1, Public, 0o600, true},
		{"0640 with group 1", 0o640, 1, Public, 0o640, true},
		{"0640 stays 0640", 0o640, -1, Public, 0o640, false},
		{"0644 written private", 0o644, -1, Private, 0o600, false},
		{"new public", 0, -1, Public, 0o644, false},
		{"new private", 0, -1, Private, 0o600, false},
	} {
		if tc.needsRoot && !root {
			t.Logf("%s: needs root (CI runs as root)", tc.name)
			continue
		}
		p := filepath.Join(t.TempDir(), "out")
		if tc.perm != 0 {
			os.WriteFile(p, []byte("old"), 0o600)
			os.Chmod(p, tc.perm)
			if tc.gid >= 0 {
				if err := os.Chown(p, -1, tc.gid); err != nil {
					t.Fatal(err)
				}
			}
		}
		var before syscall.Stat_t
		syscall.Stat(p, &before)
		if err := Write(ctx, p, tc.mode, nil, hello); err != nil {
			t.Fatal(err)
		}
		var st syscall.Stat_t
		if err := syscall.Stat(p, &st); err != nil {
			t.Fatal(err)
		}
		if got := os.FileMode(st.Mode).Perm(); got != tc.wantPerm {
			t.Errorf("%s: mode %v, want %v", tc.name, got, tc.wantPerm)
		}
		if tc.gid >= 0 && int(st.Gid) != tc.gid {
			t.Errorf("%s: group %d, want %d", tc.name, st.Gid, tc.gid)
		}
		if tc.perm != 0 && st.Uid != before.Uid {
			t.Errorf("%s: owner %d, was %d", tc.name, st.Uid, before.Uid)
		}
	}
}

// TestWriteRedacts: a registered token in what fill writes (a JUnit
// failure message, the HTML report) never reaches the file or stdout,
// also when it is split across two writes.
func TestWriteRedacts(t *testing.T) {
	const tok = "gAAAAABfileout-tok_9Qx"
	redact.Register(tok)
	fill := func(w io.Writer) error {
		io.WriteString(w, `<failure message="token `+tok[:9])
		_, err := io.WriteString(w, tok[9:]+` rejected"/>`)
		return err
	}
	var stdout bytes.Buffer
	p := filepath.Join(t.TempDir(), "junit.xml")
	for _, path := range []string{p, "-"} {
		if err := Write(ctx, path, Public, &stdout, fill); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(p)
	for _, out := range []string{string(b), stdout.String()} {
		if bytes.Contains([]byte(out), []byte("fileout-tok")) || !bytes.Contains([]byte(out), []byte("token <redacted> rejected")) {
			t.Errorf("written: %q", out)
		}
	}
}

// TestWriteFollowsNoSwappedDirectory: the output's directory swapped for
// a symlink while the report is being written (fill runs for minutes on
// a large fleet) does not move the write: the file lands in the directory
// opened first, and the link's target is untouched.
func TestWriteFollowsNoSwappedDirectory(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "reports")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	victim := filepath.Join(elsewhere, "r.html")
	if err := os.WriteFile(victim, []byte("someone else's file"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Write(context.Background(), filepath.Join(dir, "r.html"), Public, nil, func(w io.Writer) error {
		if err := os.Rename(dir, dir+".moved"); err != nil {
			return err
		}
		if err := os.Symlink(elsewhere, dir); err != nil {
			return err
		}
		_, err := io.WriteString(w, "the report")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "someone else's file" {
		t.Fatalf("the link's target was replaced: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir+".moved", "r.html")); string(b) != "the report" {
		t.Fatalf("the report is not in the directory opened first: %q", b)
	}
}
