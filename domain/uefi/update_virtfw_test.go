package uefi

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestAddMicrosoft2023AgainstVirtFwVars: virt-fw-vars (Debian's
// python3-virt-firmware, an independent writer) given the same 2011-only
// file and the same four certificates (--add-kek, --add-db, owner
// Microsoft's GUID) enrols the same entries in KEK and db as
// AddMicrosoft2023 (set-equal by owner and certificate), and leaves PK,
// dbx and every other variable as we do; and it reads our output as we
// read it. The files: bookworm's 4 MiB template (required, as the other
// template tests require it) and a store built from forky's 2011 lists.
// A missing tool fails the test, as TestTemplatesAgainstVirtFwVars does.
func TestAddMicrosoft2023AgainstVirtFwVars(t *testing.T) {
	tool, ok := findVirtFwVars()
	if !ok {
		t.Fatal("no virt-fw-vars here or in a release chroot: the cross-check needs Debian's python3-virt-firmware (run make ovmf as root)")
	}
	tmpl, err := os.ReadFile("/usr/share/OVMF/OVMF_VARS_4M.ms.fd")
	if err != nil {
		t.Fatalf("%v: install Debian's ovmf package (make test does)", err)
	}
	for _, tc := range []struct {
		name  string
		store []byte
	}{
		{"OVMF_VARS_4M.ms.fd", tmpl},
		{"built 2011 store", storeWith(t, debianPK(t), only2011(t, "KEK"), only2011(t, "db"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ours, up, err := AddMicrosoft2023(tc.store, updateNow)
			if err != nil {
				t.Fatal(err)
			}
			if len(up.Added) == 0 {
				t.Fatalf("%s already holds the 2023 certificates: nothing to compare", tc.name)
			}
			theirs := tool.addCerts(t, tc.store, Microsoft2023())
			o, th := mustRead(t, ours), mustRead(t, theirs)
			layout := "the same bytes"
			for _, v := range []struct {
				name   string
				vendor GUID
			}{{"KEK", GlobalVariable}, {"db", ImageSecurityDatabase}} {
				a, b := entries(t, o, v.name, v.vendor), entries(t, th, v.name, v.vendor)
				if strings.Join(a, "\n") != strings.Join(b, "\n") {
					t.Errorf("%s: ours\n  %s\nvirt-fw-vars'\n  %s", v.name, strings.Join(a, "\n  "), strings.Join(b, "\n  "))
				}
				if x, _ := o.Get(v.name, v.vendor); x == nil || !bytes.Equal(x.Data, value(th, v.name, v.vendor)) {
					layout = "other lists" // allowed: the set is what counts
				}
			}
			// every other variable alike (virt-fw-vars drops no live one either)
			if a, b := others(o), others(th); a != b {
				t.Errorf("other variables differ:\n ours:   %s\n theirs: %s", a, b)
			}
			// and virt-fw-vars reads our output as we do
			p := filepath.Join(t.TempDir(), "ours.fd")
			if err := os.WriteFile(p, ours, 0o600); err != nil {
				t.Fatal(err)
			}
			vars, _ := tool.run(t, p)
			if !sameVariables(o.Variables, vars) {
				t.Errorf("%s reads our output otherwise: %v, we read %v", tool, vfvNames(vars), names(o.Variables))
			}
			t.Logf("%s: %s; virt-fw-vars enrols the same entries (KEK and db values: %s)", tc.name, describeUpdate(up), layout)
		})
	}
}

// addCerts runs virt-fw-vars -i in -o out --add-kek/--add-db with the
// certificates' DER files, owner Microsoft's GUID, and returns out.
func (v virtFwVars) addCerts(t *testing.T, store []byte, certs []MS2023Cert) []byte {
	t.Helper()
	dir, err := os.MkdirTemp(filepath.Join(v.root, "/tmp"), "vtpmctl-ms2023-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	in := "/tmp/" + filepath.Base(dir) // as the tool sees it
	args := []string{"-i", in + "/in.fd", "-o", in + "/out.fd"}
	if err := os.WriteFile(filepath.Join(dir, "in.fd"), store, 0o600); err != nil {
		t.Fatal(err)
	}
	for i, c := range certs {
		f := fmt.Sprintf("cert%d.der", i)
		if err := os.WriteFile(filepath.Join(dir, f), c.DER, 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--add-"+strings.ToLower(c.Variable), MicrosoftOwner.String(), in+"/"+f)
	}
	c := exec.Command("virt-fw-vars", args...)
	if v.root != "" {
		c = exec.Command("chroot", append([]string{v.root, "/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "LANG=C.UTF-8", "virt-fw-vars"}, args...)...)
	}
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v: %s", v, strings.Join(args, " "), err, out)
	}
	out, err := os.ReadFile(filepath.Join(dir, "out.fd"))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func value(s *VarStore, name string, vendor GUID) []byte {
	if v, ok := s.Get(name, vendor); ok {
		return v.Data
	}
	return nil
}

func mustRead(t *testing.T, b []byte) *VarStore {
	t.Helper()
	s, err := ReadVarStore(b)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// entries: a variable's signature-list entries as "type owner sha256"
// lines, sorted (a set: the order of lists is the writer's choice).
func entries(t *testing.T, s *VarStore, name string, vendor GUID) []string {
	t.Helper()
	v, ok := s.Get(name, vendor)
	if !ok {
		return nil
	}
	var out []string
	for off := 0; off < len(v.Data); {
		l, err := nextList(v.Data, off)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for e := 0; e < len(l.body); e += l.sigSize {
			var owner GUID
			copy(owner[:], l.body[e:])
			out = append(out, fmt.Sprintf("%s owner %s sha256 %s", l.typ, owner, certificate(l.body[e+16:e+l.sigSize], owner).SHA256))
		}
		off += l.size
	}
	sort.Strings(out)
	return out
}

// others: every variable but KEK and db, as "name vendor attributes
// value" lines, sorted.
func others(s *VarStore) string {
	var l []string
	for _, v := range s.Variables {
		if v.Name != "KEK" && v.Name != "db" {
			l = append(l, fmt.Sprintf("%s %s %#x %x", v.Name, v.Vendor, v.Attributes, v.Data))
		}
	}
	sort.Strings(l)
	return strings.Join(l, "\n")
}
