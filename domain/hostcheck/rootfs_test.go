package hostcheck

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRootNeverReadsOutside: symlinks in a mounted host resolve inside
// it, as a chroot would; devices, FIFOs and huge files are refused.
func TestRootNeverReadsOutside(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "shadow")
	os.WriteFile(secret, []byte("[DEFAULT]\nhost = leaked-from-outside\n[libvirt]\nswtpm_enabled = True\n"), 0o600)
	for _, tc := range []struct {
		name  string
		plant func(tr *tree, conf string)
		want  string // in Run's error; "" for a report that must not show the outside file
	}{
		{"absolute symlink", func(tr *tree, conf string) { os.Symlink(secret, conf) }, "no such file"},
		{"relative symlink up", func(tr *tree, conf string) {
			os.Symlink(strings.Repeat("../", 12)+strings.TrimPrefix(secret, "/"), conf)
		}, "no such file"},
		{"directory symlink", func(tr *tree, conf string) {
			os.RemoveAll(filepath.Join(tr.root, "etc/nova"))
			os.Symlink(outside, filepath.Join(tr.root, "etc/nova"))
			os.WriteFile(filepath.Join(outside, "nova.conf"), []byte("[DEFAULT]\nhost = leaked-dir\n"), 0o600)
		}, "no such file"},
		{"/dev/zero", func(tr *tree, conf string) { os.Symlink("/dev/zero", conf) }, "no such file"},
		{"fifo", func(tr *tree, conf string) { syscall.Mkfifo(conf, 0o600) }, "not a regular file"},
		{"huge", func(tr *tree, conf string) {
			f, _ := os.Create(conf)
			f.Truncate(MaxConfigBytes + 1)
			f.Close()
		}, "more than a config file can be"},
		{"symlink loop", func(tr *tree, conf string) { os.Symlink("/etc/nova/nova.conf", conf) }, "too many levels"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTree(t)
			conf := filepath.Join(tr.root, "etc/nova/nova.conf")
			os.Remove(conf)
			tc.plant(tr, conf)
			done := make(chan struct{})
			var r *Report
			var err error
			go func() { r, err = Run(tr.o); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Run hangs")
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q (report host %v)", err, tc.want, r)
			}
		})
	}
	// an absolute symlink that stays inside the root is followed there
	tr := newTree(t)
	tr.write("/etc/kolla/nova.conf", novaConfOK)
	conf := filepath.Join(tr.root, "etc/nova/nova.conf")
	os.Remove(conf)
	os.Symlink("/etc/kolla/nova.conf", conf)
	if r := tr.run(); r.Host != "cmp1" {
		t.Errorf("host %q", r.Host)
	}
}

// TestRootDescribesTheMountedHost: its hostname, not ours; no facts from
// this machine's libvirt unless asked.
func TestRootDescribesTheMountedHost(t *testing.T) {
	tr := newTree(t)
	tr.write("/etc/nova/nova.conf", strings.Replace(novaConfOK, "host = cmp1\n", "", 1))
	tr.write("/etc/hostname", "mounted-cmp7\n")
	tr.o.Hypervisor = nil
	tr.o.Hostname = "the-auditing-machine"
	r := tr.run()
	if r.Host != "mounted-cmp7" {
		t.Errorf("host %q", r.Host)
	}
	for _, c := range r.Checks {
		if c.ID == "LIBVIRT" && (c.Status != Skip || !strings.Contains(c.Remedy, "pass libvirt_uri")) {
			t.Errorf("LIBVIRT %s: %s", c.Status, c.Message)
		}
	}
}

// TestRootWithDotDot: a root spelled with ".." and a config dir.
func TestRootWithDotDot(t *testing.T) {
	tr := newTree(t)
	tr.write("/etc/nova/nova.conf.d/50-host.conf", "[DEFAULT]\nhost = from-conf-d\n")
	tr.o.Root = filepath.Join(tr.root, "..", filepath.Base(tr.root))
	tr.o.NovaConf = []string{"/etc/nova/nova.conf"}
	tr.o.NovaConfDir = "/etc/nova/nova.conf.d"
	if r := tr.run(); r.Host != "from-conf-d" {
		t.Errorf("host %q", r.Host)
	}
}

// BenchmarkNovaConfKeys: reading is linear in the keys (20,000 keys took
// 12 s when each key's line was found by a scan of the file).
func BenchmarkNovaConfKeys(b *testing.B) {
	dir := b.TempDir()
	var sb strings.Builder
	sb.WriteString("[DEFAULT]\n")
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&sb, "key_%d = value_%d\n", i, i)
	}
	os.WriteFile(filepath.Join(dir, "nova.conf"), []byte(sb.String()), 0o644)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := LoadNovaConf("", []string{filepath.Join(dir, "nova.conf")}, ""); err != nil {
			b.Fatal(err)
		}
	}
}
