package uefi

import (
	"crypto/sha256"
	"encoding/hex"
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
	trees := append([]string{root}, globDirs("/var/tmp/vtpmctl-releases/*/root")...)
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
			checkKnownTemplate(t, p, sb)
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

// knownTemplates: what Debian's Secure Boot templates enrol, by the
// file's SHA-256 (read here, and the same in virt-fw-vars --print): the
// table docs/bitlocker.md's "Templates with the 2023 certificates" quotes.
// A template not listed (a newer ovmf package) is only checked by the
// rules above.
var knownTemplates = map[string]struct {
	pkg     string
	kek, db []string
	dbx     int
}{
	// bookworm 2022.11-6+deb12u2 (this machine, the Zed cloud): 4M and 2M alike
	"e6044c5d1fd81998a5967d907ec425e48da534832c7d9b0b4c7a702b62019c50": {"bookworm OVMF_VARS_4M.ms.fd", kek2011, db2011, 1},
	"13af965841a14cb19f5c3f15a73beb5c7fa82caac7216275122d1c763aac5eb1": {"bookworm OVMF_VARS.ms.fd", kek2011, db2011, 1},
	// trixie 2025.02-8+deb13u1 (2025.1): still only the 2011 set
	"0d12f9839018a68f4b13c9819cbf607b8b62d566f9c9dd7966550d93335f06b2": {"trixie OVMF_VARS_4M.ms.fd", kek2011, db2011, 1},
	// forky/sid 2026.08+ds-2 (2026.1, 2026.2): the 2023 CAs beside the 2011 ones, and a real dbx
	"42ca3d90cbabb32c797f0253c26bead4bee9790f18cccf43993a88fa033ffa29": {"forky/sid OVMF_VARS_4M.ms.fd",
		append(kek2011[:2:2], "Microsoft Corporation KEK 2K CA 2023"),
		[]string{"Microsoft Windows Production PCA 2011", "Windows UEFI CA 2023", "Microsoft Corporation UEFI CA 2011", "Microsoft UEFI CA 2023", "Microsoft Option ROM UEFI CA 2023"}, 443},
}

var (
	kek2011 = []string{"Debian UEFI Secure Boot (PK/KEK key)", "Microsoft Corporation KEK CA 2011"}
	db2011  = []string{"Microsoft Windows Production PCA 2011", "Microsoft Corporation UEFI CA 2011"}
)

func checkKnownTemplate(t *testing.T, p string, sb *SecureBoot) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	want, ok := knownTemplates[hex.EncodeToString(sum[:])]
	if !ok {
		return
	}
	subjects := func(d *SignatureDB) []string {
		var l []string
		if d != nil {
			for _, c := range d.Certificates {
				l = append(l, c.Subject)
			}
		}
		return l
	}
	if got := subjects(sb.KEK); strings.Join(got, "|") != strings.Join(want.kek, "|") {
		t.Errorf("%s (%s): KEK %q, want %q", p, want.pkg, got, want.kek)
	}
	if got := subjects(sb.DB); strings.Join(got, "|") != strings.Join(want.db, "|") {
		t.Errorf("%s (%s): db %q, want %q", p, want.pkg, got, want.db)
	}
	if got := subjects(sb.PK); len(got) != 1 || got[0] != "Debian UEFI Secure Boot (PK/KEK key)" {
		t.Errorf("%s (%s): PK %q", p, want.pkg, got)
	}
	if sb.DBX == nil || sb.DBX.SHA256 != want.dbx {
		t.Errorf("%s (%s): dbx %+v, want %d hashes", p, want.pkg, sb.DBX, want.dbx)
	}
}
