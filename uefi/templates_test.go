package uefi

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The OVMF templates Debian ships, on this machine (make test installs the
// ovmf package) and in every release chroot the suite built. The machine's
// templates are required: a missing package fails the test by name.
// VTPMCTL_OVMF_ROOT points at another tree holding usr/share/OVMF (an
// unpacked ovmf .deb) for a run outside the suite.
func TestRealTemplates(t *testing.T) {
	root := os.Getenv("VTPMCTL_OVMF_ROOT")
	for _, name := range []string{"OVMF_VARS_4M.ms.fd", "OVMF_VARS_4M.fd"} {
		p := filepath.Join(root, "/usr/share/OVMF", name)
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s is missing (%v): install Debian's ovmf package (make test does)", p, err)
		}
	}
	trees := append([]string{root}, globDirs("/var/tmp/vtpmctl-releases/*")...)
	for _, tree := range trees {
		files, _ := filepath.Glob(filepath.Join(tree, "/usr/share/OVMF/OVMF_VARS*.fd"))
		if len(files) == 0 {
			t.Logf("%s: no OVMF templates (ovmf not installed there)", rootLabel(tree))
			continue
		}
		for _, p := range files {
			s, err := ReadFile(p)
			if err != nil {
				t.Errorf("%v", err)
				continue
			}
			sb, err := s.SecureBoot()
			if err != nil {
				t.Errorf("%s: %v", p, err)
				continue
			}
			t.Logf("read %s:\n%s", p, describe(sb))
			switch base := filepath.Base(p); {
			case strings.Contains(base, ".ms."):
				// Microsoft's keys enrolled: the 2011 KEK or its 2023 successor,
				// and the Windows CA of either generation.
				if sb.PK == nil || len(sb.PK.Certificates) != 1 {
					t.Errorf("%s: PK should hold one certificate: %s", p, describe(sb))
				}
				if !sb.KEK.Has("Microsoft Corporation KEK CA 2011") && !sb.KEK.Has("Microsoft Corporation KEK 2K CA 2023") {
					t.Errorf("%s: no Microsoft KEK", p)
				}
				if !sb.DB.Has("Microsoft Windows Production PCA 2011") && !sb.DB.Has("Windows UEFI CA 2023") {
					t.Errorf("%s: no Windows CA in db", p)
				}
			case base == "OVMF_VARS.fd" || base == "OVMF_VARS_4M.fd":
				if sb.PK != nil || sb.KEK != nil || sb.DB != nil {
					t.Errorf("%s: an empty varstore enrols keys: %s", p, describe(sb))
				}
			}
		}
	}
}

func globDirs(pat string) []string {
	m, _ := filepath.Glob(pat)
	var out []string
	for _, d := range m {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			out = append(out, d)
		}
	}
	return out
}

func rootLabel(r string) string {
	if r == "" {
		return "this machine"
	}
	return r
}

// describe renders what a template enrols, one line per certificate.
func describe(sb *SecureBoot) string {
	var b strings.Builder
	for _, v := range []struct {
		n string
		d *SignatureDB
	}{{"PK", sb.PK}, {"KEK", sb.KEK}, {"db", sb.DB}, {"dbx", sb.DBX}} {
		if v.d == nil {
			fmt.Fprintf(&b, "  %-3s absent\n", v.n)
			continue
		}
		fmt.Fprintf(&b, "  %-3s %d certificates, %d SHA-256 hashes\n", v.n, len(v.d.Certificates), v.d.SHA256)
		for _, c := range v.d.Certificates {
			fmt.Fprintf(&b, "      %q (issuer %q, %s to %s, owner %s)%s\n", c.Subject, c.Issuer,
				c.NotBefore.Format("2006-01-02"), c.NotAfter.Format("2006-01-02"), c.Owner, c.ParseError)
		}
	}
	return b.String()
}
