package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/vtpmctl/vtpmctl/app/secureboot"
	"github.com/vtpmctl/vtpmctl/app/secureboot/sbtest"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
)

// TestSecureBootScripts runs testdata/secureboot: host secure-boot status
// and update on variable files (--nvram), no libvirt needed. Setup writes
// the stores into $WORK and a copy of each into $WORK/orig, for cmp.
func TestSecureBootScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/secureboot",
		Setup: func(e *testscript.Env) error {
			e.Setenv("HOME", e.WorkDir)
			e.Setenv("OS_CLOUD", "")
			for name, b := range map[string][]byte{"ms2011.fd": sbtest.Store2011(), "ms2023.fd": sbtest.Store2023(), "plain.fd": sbtest.StorePlain(),
				"setup.fd": sbtest.StoreSetupMode(), "full.fd": sbtest.StoreFull()} {
				for _, dir := range []string{e.WorkDir, filepath.Join(e.WorkDir, "orig")} {
					if err := os.MkdirAll(dir, 0o755); err != nil {
						return err
					}
					if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
						return err
					}
				}
			}
			return nil
		},
	})
}

// sbHost is this machine as a compute host for update --server: a
// nova.conf of its own (2026.1 keeps NVRAM unless rel says otherwise)
// and a recorded libvirtd.
type sbHost struct {
	dir  string
	conf string
	lv   *sbtest.Libvirt
}

func newSBHost(t *testing.T) *sbHost {
	h := &sbHost{dir: t.TempDir(), lv: sbtest.NewLibvirt()}
	h.conf = filepath.Join(h.dir, "nova.conf")
	if err := os.WriteFile(h.conf, []byte("[DEFAULT]\nhost = cmp1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := secureBootLibvirt
	secureBootLibvirt = func(uri string) (secureboot.Libvirt, error) { return h.lv.Connect(uri) }
	t.Cleanup(func() { secureBootLibvirt = old })
	return h
}

func (h *sbHost) guest(t *testing.T, name, uuid string, state hostcheck.DomainState, b []byte) string {
	p := filepath.Join(h.dir, name+"_VARS.fd")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	h.lv.Define(sbtest.DomainXML(name, uuid, "server "+name, p), uuid, state)
	return p
}

func (h *sbHost) run(t *testing.T, stdin string, args ...string) (int, string, string) {
	var out bytes.Buffer
	code, errs := h.runTo(t, &out, stdin, args...)
	return code, out.String(), errs
}

// runTo is run with stdout out.
func (h *sbHost) runTo(t *testing.T, out io.Writer, stdin string, args ...string) (int, string) {
	var errb bytes.Buffer
	code := h.runOn(&IOStreams{In: strings.NewReader(stdin), Out: out, Err: &errb}, args...)
	return code, errb.String()
}

// runOn runs `host secure-boot ARGS` on streams.
func (h *sbHost) runOn(streams *IOStreams, args ...string) int {
	full := append([]string{"vtpmctl", "host", "secure-boot"}, args...)
	// --nova-root: an empty tree, so that the Nova installed on this
	// machine (if any) is not what decides NVRAM-KEPT, the release is
	full = append(full, "--nova-conf", h.conf, "--libvirt-uri", "test:///cmp1", "--nova-root", filepath.Join(h.dir, "nova-root"))
	return Main(context.Background(), full, streams)
}

const (
	sbUUID  = "6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d11"
	sbUUID2 = "0b9e8d2c-1111-4c51-9a4f-3a8f0f1a6d22"
)

// TestSecureBootUpdateServer: --server on a host, through libvirt's
// seam: each refusal is exit 2, one line naming the guest and its file,
// the file untouched; the write goes through; a terminal is asked.
func TestSecureBootUpdateServer(t *testing.T) {
	for _, c := range []struct {
		name  string
		rel   string
		state hostcheck.DomainState
		code  int
		line  string
	}{
		{"running", "2026.1", hostcheck.DomainRunning, exitUsage, "refused: instance-0000000a (" + sbUUID + ") %s: the domain is running: stop it first"},
		{"Nova recreates NVRAM", "2024.2", hostcheck.DomainShutOff, exitUsage, "refused: instance-0000000a (" + sbUUID + ") %s: this host's Nova (2024.2) recreates every guest's NVRAM"},
		{"Nova's verdict unknown", "2025.1", hostcheck.DomainShutOff, exitUsage, "refused: instance-0000000a (" + sbUUID + ") %s: whether this host's Nova (2025.1) keeps a guest's NVRAM is unknown"},
		{"stopped", "2026.1", hostcheck.DomainShutOff, exitOK, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newSBHost(t)
			orig := sbtest.Store2011()
			p := h.guest(t, "instance-0000000a", sbUUID, c.state, orig)
			code, out, errb := h.run(t, "", "update", "--server", strings.ToUpper(sbUUID), "--bitlocker-suspended", "--yes", "--nova-release", c.rel)
			got, _ := os.ReadFile(p)
			switch {
			case code != c.code:
				t.Fatalf("exit %d, want %d: %s%s", code, c.code, out, errb)
			case c.code == exitOK && (bytes.Equal(got, orig) || !strings.Contains(out, "| updated") || errb != ""):
				t.Errorf("not written: %s%s", out, errb)
			case c.code != exitOK && (!bytes.Equal(got, orig) || strings.Count(errb, "\n") != 1 || !strings.Contains(errb, strings.Replace(c.line, "%s", p, 1))):
				t.Errorf("stderr %q, want one line with %q; file untouched: %v", errb, c.line, bytes.Equal(got, orig))
			}
		})
	}
	t.Run("not on this host", func(t *testing.T) {
		h := newSBHost(t)
		h.guest(t, "instance-0000000a", sbUUID, hostcheck.DomainShutOff, sbtest.Store2011())
		code, out, errb := h.run(t, "", "update", "--server", sbUUID2, "--bitlocker-suspended", "--yes", "--nova-release", "2026.1")
		if code != exitUsage || out != "" || !strings.Contains(errb, "no domain with UUID "+sbUUID2+" on this host (cmp1)") {
			t.Errorf("exit %d %q %q", code, out, errb)
		}
	})
	t.Run("asked on a terminal", func(t *testing.T) {
		// a real terminal (a pty) on stdin and stderr, no stand-in
		h := newSBHost(t)
		orig := sbtest.Store2011()
		p := h.guest(t, "instance-0000000a", sbUUID, hostcheck.DomainShutOff, orig)
		args := []string{"update", "--server", sbUUID, "--bitlocker-suspended", "--nova-release", "2026.1"}
		var out bytes.Buffer
		code, screen := onTerminal(t, "n", func(s *IOStreams) int { s.Out = &out; return h.runOn(s, args...) })
		if got, _ := os.ReadFile(p); code != exitFailed || !bytes.Equal(got, orig) || !strings.Contains(screen, "add KEK Microsoft Corporation KEK 2K CA 2023, db Windows UEFI CA 2023") ||
			!strings.Contains(screen, "write these 1 NVRAM file(s), keeping a backup of each? [y/N]") || !strings.Contains(screen, "not confirmed; nothing was written") {
			t.Errorf("declined: exit %d, %q", code, screen)
		}
		out.Reset()
		code, screen = onTerminal(t, "y", func(s *IOStreams) int { s.Out = &out; return h.runOn(s, args...) })
		if got, _ := os.ReadFile(p); code != exitOK || bytes.Equal(got, orig) || !strings.Contains(out.String(), "next: start each guest") {
			t.Errorf("confirmed: exit %d, %s%s", code, out.String(), screen)
		}
	})
}

// TestSecureBootStatusHost: the host's guests from libvirt, and a
// hostile domain name shown escaped, never as the terminal's command.
func TestSecureBootStatusHost(t *testing.T) {
	h := newSBHost(t)
	h.guest(t, "instance-0000000a", sbUUID, hostcheck.DomainShutOff, sbtest.Store2011())
	// A name is the user's (Nova's server name) or the operator's; XML
	// carries no escape character, but a bidi override it does.
	h.guest(t, "evil\u202enimda", sbUUID2, hostcheck.DomainRunning, sbtest.Store2023())
	code, out, errb := h.run(t, "", "status", "--nova-release", "2026.1", "-c", "domain", "-c", "uuid", "-c", "state", "-c", "certificates", "-c", "remedy", "-c", "server_name")
	if code != exitOK || errb != "" {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if strings.Contains(out, "\u202e") || !strings.Contains(out, "evil") {
		t.Errorf("the bidi override reached the terminal:\n%q", out)
	}
	for _, want := range []string{"| instance-0000000a | " + sbUUID + " | shut off | 2011", "| update", "2023", "| none"} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = h.run(t, "", "status", "--nova-release", "2026.1")
	if code != exitOK || !strings.Contains(out, "to update: suspend BitLocker in each guest, stop it, then vtpmctl host secure-boot update --bitlocker-suspended --server "+sbUUID+" (") ||
		!strings.Contains(out, "host cmp1, Nova 2026.1: guests' NVRAM kept across stop/start: yes") {
		t.Errorf("footer:\n%s", out)
	}
}

// closedPipe is a stdout whose reader is gone.
type closedPipe struct{}

func (closedPipe) Write([]byte) (int, error) { return 0, syscall.EPIPE }

// TestSecureBootUpdateOutputFails: when the output cannot be written after
// a file was (stdout a closed pipe), stderr names the file written and
// where its original is kept, and the exit is 1, never 2 ("every file
// untouched"). With nothing written it is as before. A -c naming no
// column is refused before any file is read or written (it used to be
// found once the files were written).
func TestSecureBootUpdateOutputFails(t *testing.T) {
	for _, c := range []struct {
		name string
		out  io.Writer
		args []string
	}{
		{"stdout a closed pipe (table)", closedPipe{}, nil},
		{"stdout a closed pipe (json)", closedPipe{}, []string{"-f", "json"}},
		{"stdout a closed pipe (yaml)", closedPipe{}, []string{"-f", "yaml"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newSBHost(t)
			orig := sbtest.Store2011()
			p := h.guest(t, "instance-0000000a", sbUUID, hostcheck.DomainShutOff, orig)
			code, errb := h.runTo(t, c.out, "", append([]string{"update", "--server", sbUUID, "--bitlocker-suspended", "--yes", "--nova-release", "2026.1"}, c.args...)...)
			got, _ := os.ReadFile(p)
			baks, _ := filepath.Glob(p + ".vtpmctl-*.bak")
			if bytes.Equal(got, orig) || len(baks) != 1 {
				t.Fatalf("the file was not written (backups %v): exit %d, %s", baks, code, errb)
			}
			want := "vtpmctl: host secure-boot update: written: instance-0000000a (" + sbUUID + ") " + p + "; the original is kept at " + baks[0] + "\n"
			if code != exitFailed || !strings.Contains(errb, want) || !strings.Contains(errb, "1 file(s) written, each named above, but the output could not be written: ") {
				t.Errorf("exit %d, want %d; stderr:\n%s\nwant the line\n%s", code, exitFailed, errb, want)
			}
		})
	}
	t.Run("-c names no column", func(t *testing.T) {
		h := newSBHost(t)
		orig := sbtest.Store2011()
		p := h.guest(t, "instance-0000000a", sbUUID, hostcheck.DomainShutOff, orig)
		code, errb := h.runTo(t, &bytes.Buffer{}, "", "update", "--server", sbUUID, "--bitlocker-suspended", "--yes", "--nova-release", "2026.1", "-c", "acton")
		baks, _ := filepath.Glob(p + ".vtpmctl-*.bak")
		if got, _ := os.ReadFile(p); code != exitUsage || !bytes.Equal(got, orig) || len(baks) != 0 ||
			errb != "vtpmctl: -c \"acton\": host secure-boot update has no such column (did you mean \"action\"?)\n" {
			t.Errorf("exit %d, untouched %v, backups %v, stderr %q", code, bytes.Equal(got, orig), baks, errb)
		}
	})
	t.Run("nothing written", func(t *testing.T) {
		h := newSBHost(t)
		orig := sbtest.Store2011()
		p := h.guest(t, "instance-0000000a", sbUUID, hostcheck.DomainShutOff, orig)
		code, errb := h.runTo(t, closedPipe{}, "", "update", "--server", sbUUID, "--dry-run", "--nova-release", "2026.1")
		if got, _ := os.ReadFile(p); code != exitFailed || !bytes.Equal(got, orig) || strings.Contains(errb, "written:") || !strings.Contains(errb, "broken pipe") {
			t.Errorf("dry run: exit %d, untouched %v, stderr %q", code, bytes.Equal(got, orig), errb)
		}
	})
}
