// Package devcloud holds the local cloud's scripts; this test checks the
// one that picks the Debian mirror for debootstrap chroots.
package devcloud

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDebianMirror: debian-mirror.sh takes the first Debian main entry of
// the machine's apt sources (one-line and deb822, in apt's order), lets
// VTPMCTL_DEBIAN_MIRROR override it, and has no public default: nothing
// found is one line and exit 2 (release.sh and dist-test fell back to
// deb.debian.org, which an air-gapped site cannot reach).
func TestDebianMirror(t *testing.T) {
	security := "Types: deb\nURIs: http://mirror.example/debian-security\nSuites: bookworm-security\nComponents: main\n\n"
	for _, c := range []struct {
		name  string
		files map[string]string
		env   []string
		want  string // "" = refused
	}{
		{"deb822 after security", map[string]string{"sources.list.d/debian.sources": "# local\n" + security +
			"Types: deb deb-src\nURIs: http://mirror.example/debian http://other.example/debian\nSuites: bookworm bookworm-updates\nComponents: main contrib\n"}, nil, "http://mirror.example/debian"},
		{"deb822 disabled skipped", map[string]string{"sources.list.d/a.sources": "Enabled: no\nTypes: deb\nURIs: http://off.example/debian\nSuites: trixie\nComponents: main\n",
			"sources.list.d/b.sources": "Types: deb\nURIs: http://on.example/debian\nSuites: trixie\nComponents: main\n"}, nil, "http://on.example/debian"},
		{"one-line", map[string]string{"sources.list": "# deb http://commented.example/debian bookworm main\ndeb-src http://src.example/debian bookworm main\n" +
			"deb http://security.example/debian-security bookworm-security main\ndeb [arch=amd64 signed-by=/k.gpg] http://mirror.example/debian bookworm main non-free\n"}, nil, "http://mirror.example/debian"},
		{"one-line spaced options", map[string]string{"sources.list": "deb [ arch=amd64 ] http://mirror.example/debian sid main\n"}, nil, "http://mirror.example/debian"},
		{"sources.list before sources.list.d", map[string]string{"sources.list": "deb http://first.example/debian bookworm main\n",
			"sources.list.d/debian.sources": "Types: deb\nURIs: http://second.example/debian\nSuites: bookworm\nComponents: main\n"}, nil, "http://first.example/debian"},
		{"disabled file and contrib only", map[string]string{"sources.list.d/x.list.disabled-by-farm": "deb http://x.example/debian bookworm main\n",
			"sources.list.d/y.list": "deb http://y.example/debian bookworm contrib\n"}, nil, ""},
		{"another distribution", map[string]string{"sources.list": "deb http://archive.ubuntu.com/ubuntu jammy main restricted\n"}, nil, ""},
		{"nothing", nil, nil, ""},
		{"override", map[string]string{"sources.list": "deb http://mirror.example/debian bookworm main\n"}, []string{"VTPMCTL_DEBIAN_MIRROR=http://local.example/debian"}, "http://local.example/debian"},
	} {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "sources.list.d"), 0o755); err != nil {
			t.Fatal(err)
		}
		for name, body := range c.files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command("bash", "debian-mirror.sh")
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "VTPMCTL_APT_DIR=" + dir}, c.env...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		if c.want != "" {
			if err != nil || out.String() != c.want+"\n" {
				t.Errorf("%s: %q %v %s, want %s", c.name, out.String(), err, errb.String(), c.want)
			}
			continue
		}
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || out.Len() != 0 || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), "VTPMCTL_DEBIAN_MIRROR") {
			t.Errorf("%s: %v, stdout %q, stderr %q; want exit 2 and one line", c.name, err, out.String(), errb.String())
		}
	}
}

// TestNoPublicMirrorDefault: the chroot builders take the mirror from
// debian-mirror.sh, not a built-in public address.
func TestNoPublicMirrorDefault(t *testing.T) {
	for _, f := range []string{"release.sh", "../Makefile", "../packaging/dist-test.sh"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("deb.debian.org")) || !bytes.Contains(b, []byte("debian-mirror.sh")) {
			t.Errorf("%s: a public mirror default, or no debian-mirror.sh", f)
		}
	}
}
