package hostcheck

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// hostModeDomain: a guest whose flavor asks for host mode.
func hostModeDomain(t *testing.T) *Domain {
	x := domainXML(guestUUID, true)
	meta := `<metadata><nova:instance xmlns:nova="http://openstack.org/xmlns/libvirt/nova/1.1"><nova:flavor name="f"><nova:extraSpecs>` +
		`<nova:extraSpec name="hw:tpm_version">2.0</nova:extraSpec><nova:extraSpec name="hw:tpm_secret_security">host</nova:extraSpec>` +
		`</nova:extraSpecs></nova:flavor></nova:instance></metadata>`
	return mustDomain(t, strings.Replace(x, "<devices>", meta+"<devices>", 1))
}

func persistentSecret(uuid string) *Secret {
	s := &Secret{Ephemeral: "no"}
	s.Usage.Type, s.Usage.Name = "vtpm", uuid
	return s
}

// TestMigrationOnFactLiterals: the readiness checks and each guest's
// migration_ready, from facts built in memory.
func TestMigrationOnFactLiterals(t *testing.T) {
	cases := []struct {
		name    string
		change  func(f *Facts)
		id      string
		status  Status
		msg     string
		ready   bool
		reasons string // in the guest's reasons ("" = none expected to match)
	}{
		{"swtpm with cmdarg-migration, secret present", func(f *Facts) {
			f.Migration.SwtpmFeatures = []string{"tpm-2.0", "cmdarg-migration"}
			f.Libvirt.Secrets = []*Secret{persistentSecret(guestUUID)}
		}, "MIGRATION-READY", Pass, "1 host-mode guest(s) have their persistent libvirt secret", true, ""},
		{"secret missing", func(f *Facts) {}, "MIGRATION-READY", Fail, "1 of 1 host-mode guest(s) cannot be live-migrated", false, "TPM secret was not found"},
		{"old swtpm", func(f *Facts) {
			f.Migration.SwtpmFeatures = []string{"tpm-2.0"}
			f.Libvirt.Secrets = []*Secret{persistentSecret(guestUUID)}
		}, "SWTPM-MIGRATION", Warn, "the running swtpm does not support migration", true, "the running swtpm does not support migration"},
		{"swtpm not asked", func(f *Facts) {}, "SWTPM-MIGRATION", Skip, "unknown: not asked", false, ""},
		{"kolla without the secrets volume", func(f *Facts) {
			f.Migration.SecretsKept, f.Migration.SecretsWhy = "no", "no volume nova_libvirt_secrets"
			f.Libvirt.Secrets = []*Secret{persistentSecret(guestUUID)}
		}, "LIBVIRT-SECRETS-KEPT", Fail, "re-create: no", true, "re-create: no"},
		{"2025.2: no live migration at all", func(f *Facts) { f.Release = nova.Flamingo }, "SWTPM-MIGRATION", Skip, "", false, "refuses live migration of every vTPM guest"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := healthyFacts(t)
			f.Release = nova.Gazpacho
			f.Libvirt.Domains = []*Domain{hostModeDomain(t)}
			c.change(&f)
			f.derive()
			r := evaluate(&f)
			found := false
			for _, ch := range r.Checks {
				if ch.ID == c.id {
					found = true
					if ch.Status != c.status || !strings.Contains(ch.Message, c.msg) {
						t.Errorf("%s: %s %q, want %s %q", c.id, ch.Status, ch.Message, c.status, c.msg)
					}
				}
			}
			if !found {
				t.Errorf("no %s check in %+v", c.id, r.Checks)
			}
			g := r.VTPMGuests[0]
			if g.MigrationReady == nil || *g.MigrationReady != c.ready {
				t.Errorf("migration_ready %v, want %v (%v)", g.MigrationReady, c.ready, g.MigrationReasons)
			}
			if c.reasons != "" && !strings.Contains(strings.Join(g.MigrationReasons, "|"), c.reasons) {
				t.Errorf("reasons %q lack %q", g.MigrationReasons, c.reasons)
			}
		})
	}
}

func TestParseSwtpmCaps(t *testing.T) {
	got, err := parseSwtpmCaps(`{ "type": "swtpm", "features": [ "tpm-1.2", "tpm-2.0", "cmdarg-migration" ], "version": "0.9.0" }`)
	if err != nil || len(got) != 3 || got[2] != "cmdarg-migration" {
		t.Errorf("%v %v", got, err)
	}
	if _, err := parseSwtpmCaps("swtpm: unknown option"); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Errorf("non-JSON: %v", err)
	}
}

// TestLibtpmsAndKollaSecrets: libtpms from the library's file name (the
// highest when several), kolla's secrets volume from the volume dirs.
func TestLibtpmsAndKollaSecrets(t *testing.T) {
	root := t.TempDir()
	mk := func(p string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if v := findLibtpms(root); v != "" {
		t.Errorf("none installed: %q", v)
	}
	mk("/usr/lib64/libtpms.so.0.9.6")
	mk("/usr/lib64/libtpms.so.0.10.0")
	if v := findLibtpms(root); v != "0.10.0" {
		t.Errorf("libtpms %q, want 0.10.0", v)
	}
	if s, why := kollaSecretsKept(root); s != "unknown" || !strings.Contains(why, "cannot be told") {
		t.Errorf("no volume dirs: %s %s", s, why)
	}
	mk("/var/lib/docker/volumes/libvirtd/_data/x")
	if s, _ := kollaSecretsKept(root); s != "no" {
		t.Errorf("docker volumes without nova_libvirt_secrets: %s", s)
	}
	mk("/var/lib/docker/volumes/nova_libvirt_secrets/_data/x")
	if s, _ := kollaSecretsKept(root); s != "yes" {
		t.Errorf("with the volume: %s", s)
	}
}

func TestCompareVersions(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"0.9.6", "0.10.0", -1}, {"0.10.0", "0.9.6", 1}, {"0.9", "0.9.0", 0}} {
		if got := CompareVersions(c.a, c.b); got != c.want {
			t.Errorf("%s vs %s: %d", c.a, c.b, got)
		}
	}
}

// TestGatherMigration: swtpm is asked its capabilities only where it was
// found, libtpms is read in libvirtd's filesystem, the secrets volume is
// judged on kolla only.
func TestGatherMigration(t *testing.T) {
	root := t.TempDir()
	lib := filepath.Join(root, "usr/lib64")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lib, "libtpms.so.0.9.6"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	asked := ""
	caps := func(bin string) (string, error) {
		asked = bin
		return `{"type":"swtpm","features":["tpm-2.0","cmdarg-migration"]}`, nil
	}
	f := &Facts{Root: root, LibvirtRoot: root, Layout: Layout{Name: LayoutKolla},
		Binaries: BinaryFacts{Paths: map[string]map[string]string{"": {"swtpm": "/usr/bin/swtpm"}}}}
	m := gatherMigration(f, caps)
	if asked != "/usr/bin/swtpm" || m.swtpmMigration() != "yes" || m.Libtpms != "0.9.6" || m.SecretsKept != "unknown" {
		t.Errorf("asked %q: %+v", asked, m)
	}
	f.Layout = Layout{Name: LayoutPackages, Unread: map[string]string{"libvirt": "not readable"}}
	f.Binaries.Paths[""]["swtpm"] = ""
	asked = ""
	m = gatherMigration(f, caps)
	if asked != "" || m.swtpmMigration() != "unknown" || m.Libtpms != "" || m.SecretsKept != "" {
		t.Errorf("nothing to ask: asked %q: %+v", asked, m)
	}
}

// TestLibtpmsStaysInRoot: an absolute symlink in the audited tree leads
// to the same path below --root, never to the auditing machine's files.
func TestLibtpmsStaysInRoot(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "libtpms.so.9.9.9"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "usr"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "usr/lib64")); err != nil {
		t.Fatal(err)
	}
	if v := findLibtpms(root); v != "" {
		t.Errorf("libtpms %q found through a link out of the root", v)
	}
}

// TestRunBounded: a program of the host's that never answers costs host
// check 10 s, not for ever; its output is capped.
func TestRunBounded(t *testing.T) {
	defer func(d time.Duration) { runTimeout = d }(runTimeout)
	runTimeout = 300 * time.Millisecond
	dir := t.TempDir()
	hang := filepath.Join(dir, "hang")
	if err := os.WriteFile(hang, []byte("#!/bin/sh\nexec sleep 60\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	if _, err := runBounded(ctx, false, hang); err == nil || !strings.Contains(err.Error(), "no answer within 300ms") {
		t.Errorf("err = %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s", d)
	}
	loud := filepath.Join(dir, "loud")
	if err := os.WriteFile(loud, []byte("#!/bin/sh\nhead -c 1000000 /dev/zero\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := runBounded(ctx, false, loud)
	if err != nil || len(out) != 64<<10 {
		t.Errorf("%d bytes, err %v; want 64 KiB", len(out), err)
	}
}
