package uefi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/pem"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// forkyLists reads the KEK or db testdata/ms2023 holds (forky's template
// as enrolled): its X.509 entries, one per list, with their owners.
func forkyLists(t testing.TB, name string) []forkyEntry {
	t.Helper()
	b, err := os.ReadFile("testdata/ms2023/forky-2026.08-" + name + ".esl")
	if err != nil {
		t.Fatal(err)
	}
	var out []forkyEntry
	for off := 0; off < len(b); {
		l, err := nextList(b, off)
		if err != nil {
			t.Fatal(err)
		}
		if l.typ != CertX509GUID || len(l.body) != l.sigSize {
			t.Fatalf("%s: list at %d is not one X.509 certificate", name, off)
		}
		var owner GUID
		copy(owner[:], l.body[:16])
		out = append(out, forkyEntry{list: b[off : off+l.size], owner: owner, der: l.body[16:]})
		off += l.size
	}
	return out
}

type forkyEntry struct {
	list  []byte // the whole EFI_SIGNATURE_LIST
	owner GUID
	der   []byte
}

// is2023 says whether der is one of the embedded certificates.
func is2023(der []byte) bool {
	for _, c := range Microsoft2023() {
		if bytes.Equal(c.DER, der) {
			return true
		}
	}
	return false
}

// TestMicrosoft2023: each embedded certificate is what its constants say
// (fingerprint, subject, variable) and is, byte for byte, the entry forky's
// template enrols, owned by Microsoft.
func TestMicrosoft2023(t *testing.T) {
	certs := Microsoft2023()
	want := map[string]string{
		"Microsoft Corporation KEK 2K CA 2023": "KEK", "Windows UEFI CA 2023": "db",
		"Microsoft UEFI CA 2023": "db", "Microsoft Option ROM UEFI CA 2023": "db",
	}
	if len(certs) != len(want) {
		t.Fatalf("%d certificates, want %d", len(certs), len(want))
	}
	forky := map[string][]forkyEntry{"KEK": forkyLists(t, "KEK"), "db": forkyLists(t, "db")}
	for _, c := range certs {
		sum := sha256.Sum256(c.DER)
		if hex.EncodeToString(sum[:]) != c.SHA256 {
			t.Errorf("%s: DER's SHA-256 %x, constant %s", c.Subject, sum, c.SHA256)
		}
		if got := certificate(c.DER, GUID{}); got.Subject != c.Subject || got.ParseError != "" || got.NotAfter.Year() < 2035 {
			t.Errorf("%s: DER reads as %q (%s), valid to %s", c.Subject, got.Subject, got.ParseError, got.NotAfter)
		}
		if want[c.Subject] != c.Variable {
			t.Errorf("%s: variable %q, want %q", c.Subject, c.Variable, want[c.Subject])
		}
		found := false
		for _, e := range forky[c.Variable] {
			if bytes.Equal(e.der, c.DER) {
				found = e.owner == MicrosoftOwner
			}
		}
		if !found {
			t.Errorf("%s: not in forky's %s as Microsoft's entry", c.Subject, c.Variable)
		}
	}
	// fresh copies: a caller's change does not reach the next caller
	certs[0].DER[0] ^= 0xFF
	if Microsoft2023()[0].DER[0] == certs[0].DER[0] {
		t.Error("Microsoft2023 shares its DER between calls")
	}
}

// TestMicrosoft2023AgainstTemplates: every OVMF template on this machine
// and in the release chroots that enrols a certificate named as one of
// ours enrols exactly ours (forky's 2026.08 does; older ones have none).
func TestMicrosoft2023AgainstTemplates(t *testing.T) {
	byName := map[string]MS2023Cert{}
	for _, c := range Microsoft2023() {
		byName[c.Subject] = c
	}
	var files []string
	for _, tree := range append([]string{os.Getenv("VTPMCTL_OVMF_ROOT")}, globDirs("/var/tmp/vtpmctl-releases/*/root")...) {
		m, _ := filepath.Glob(filepath.Join(tree, "/usr/share/OVMF/OVMF_VARS*.fd"))
		files = append(files, m...)
	}
	matched := 0
	for _, p := range files {
		s, err := ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sb, err := s.SecureBoot()
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []*SignatureDB{sb.KEK, sb.DB} {
			if d == nil {
				continue
			}
			for _, e := range d.Certificates {
				if c, ok := byName[e.Subject]; ok {
					matched++
					if e.SHA256.String() != c.SHA256 || e.Owner != MicrosoftOwner {
						t.Errorf("%s enrols %q as %s owned by %s, ours is %s", p, e.Subject, e.SHA256, e.Owner, c.SHA256)
					}
				}
			}
		}
	}
	t.Logf("%d templates, %d entries named as a 2023 certificate, all ours", len(files), matched)
}

// TestMicrosoft2023AgainstVirtFwVars: the PEM copies Debian's
// python3-virt-firmware ships are our certificates (24.11 has three of
// the four, 26.9 all). A missing tool fails, as the cross-checks do.
func TestMicrosoft2023AgainstVirtFwVars(t *testing.T) {
	tool, ok := findVirtFwVars()
	if !ok {
		t.Fatal("no virt-fw-vars here or in a release chroot: the cross-check needs Debian's python3-virt-firmware (run make ovmf as root)")
	}
	dirs, _ := filepath.Glob(filepath.Join(tool.root, "/usr/lib/python3/dist-packages/virt/firmware/certs"))
	if len(dirs) == 0 {
		t.Fatalf("%s: no virt/firmware/certs directory", tool)
	}
	ours := map[string]MS2023Cert{}
	for _, c := range Microsoft2023() {
		ours[c.Subject] = c
	}
	seen := map[string]bool{}
	err := filepath.WalkDir(dirs[0], func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".pem") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		blk, _ := pem.Decode(b)
		if blk == nil || blk.Type != "CERTIFICATE" {
			t.Errorf("%s: no PEM certificate", p)
			return nil
		}
		c, ok := ours[certificate(blk.Bytes, GUID{}).Subject]
		if !ok {
			return nil
		}
		seen[c.Subject] = true
		if !bytes.Equal(blk.Bytes, c.DER) {
			t.Errorf("%s: %s differs from the embedded certificate", p, c.Subject)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Microsoft Corporation KEK 2K CA 2023", "Windows UEFI CA 2023", "Microsoft UEFI CA 2023"} {
		if !seen[s] {
			t.Errorf("%s ships no %s", tool, s)
		}
	}
	t.Logf("%s: %d of our certificates shipped, each identical", tool, len(seen))
}
