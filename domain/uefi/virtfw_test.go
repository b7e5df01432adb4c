package uefi

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// virtFwVars runs virt-fw-vars (Debian's python3-virt-firmware, an
// independent reader of edk2 variable stores) on this machine, where
// `make unit` installs it, or else in a release chroot that has it. The
// file is copied into the chroot's /tmp, so any template can be read by
// any chroot's tool.
type virtFwVars struct {
	root string // "" for this machine
}

func findVirtFwVars() (virtFwVars, bool) {
	if _, err := exec.LookPath("virt-fw-vars"); err == nil {
		return virtFwVars{}, true
	}
	for _, r := range globDirs("/var/tmp/vtpmctl-releases/*/root") {
		if _, err := os.Stat(filepath.Join(r, "usr/bin/virt-fw-vars")); err == nil {
			return virtFwVars{root: r}, true
		}
	}
	return virtFwVars{}, false
}

func (v virtFwVars) String() string {
	if v.root == "" {
		return "virt-fw-vars"
	}
	return "virt-fw-vars in " + v.root
}

// run returns what --output-json and --print --verbose say of the file
// (one run: the interpreter's start is most of its time).
func (v virtFwVars) run(t *testing.T, path string) (vars []vfvVariable, printed string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(filepath.Join(v.root, "/tmp"), "vtpmctl-vars-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "vars.fd"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	in := "/tmp/" + filepath.Base(dir) // as the tool sees it
	args := []string{"-i", in + "/vars.fd", "--print", "--verbose", "--output-json", in + "/vars.json"}
	c := exec.Command("virt-fw-vars", args...)
	if v.root != "" {
		c = exec.Command("chroot", append([]string{v.root, "/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "LANG=C.UTF-8", "virt-fw-vars"}, args...)...)
	}
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("%s on %s: %v: %s", v, path, err, stderr.String())
	}
	raw, err := os.ReadFile(filepath.Join(dir, "vars.json"))
	if err != nil {
		t.Fatalf("%s on %s wrote no JSON: %v", v, path, err)
	}
	var doc struct {
		Variables []vfvVariable `json:"variables"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s --output-json %s: %v", v, path, err)
	}
	return doc.Variables, string(out)
}

type vfvVariable struct {
	Name string `json:"name"`
	GUID string `json:"guid"`
	Attr uint32 `json:"attr"`
	Data string `json:"data"` // hex
}

// vfvSignatures reads --print --verbose's signature lists: the X.509
// subjects (CN only, as Certificate.Subject has them) and the SHA-256
// count of each of PK, KEK, db, dbx.
func vfvSignatures(printed string) map[string]vfvSigs {
	out := map[string]vfvSigs{}
	var cur string
	var sha256List bool
	sc := bufio.NewScanner(strings.NewReader(printed))
	for sc.Scan() {
		l := sc.Text()
		switch f := strings.Fields(l); {
		case strings.HasPrefix(l, "name="):
			cur = strings.TrimPrefix(f[0], "name=")
		case len(f) >= 3 && f[0] == "siglist":
			sha256List = f[1] == "type=guid:EfiCertSha256"
			var n int
			fmt.Sscanf(f[2], "count=%d", &n)
			if sha256List {
				s := out[cur]
				s.sha256 += n
				out[cur] = s
			}
		case l == "    no subject CN":
			s := out[cur]
			s.subjects = append(s.subjects, noCN)
			out[cur] = s
		case strings.HasPrefix(l, "    subject "):
			s := out[cur]
			s.subjects = append(s.subjects, strings.TrimPrefix(strings.TrimPrefix(l, "    subject "), "CN="))
			out[cur] = s
		}
	}
	return out
}

// noCN stands for a certificate virt-fw-vars finds no subject CN in; ours
// names it by its whole DN.
const noCN = "(no CN)"

type vfvSigs struct {
	subjects []string
	sha256   int
}

// TestTemplatesAgainstVirtFwVars: every OVMF template of this machine and
// of the release chroots reads the same here as in virt-fw-vars: the same
// variables (name, vendor, attributes, data) and, in PK/KEK/db/dbx, the
// same certificate subjects in the same order and the same dbx hashes.
func TestTemplatesAgainstVirtFwVars(t *testing.T) {
	tool, ok := findVirtFwVars()
	if !ok {
		// A failure, not a skip: a skipped cross-check went unnoticed on
		// every fresh bookworm machine. make unit's ovmf target installs it
		// on any Debian suite (bookworm: trixie's .deb).
		t.Fatal("no virt-fw-vars here or in a release chroot: the cross-check needs Debian's python3-virt-firmware (run make ovmf as root)")
	}
	var files []string
	for _, tree := range append([]string{""}, globDirs("/var/tmp/vtpmctl-releases/*/root")...) {
		m, _ := filepath.Glob(filepath.Join(tree, "/usr/share/OVMF/OVMF_VARS*.fd"))
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no OVMF_VARS*.fd on this machine: install Debian's ovmf package (make unit does)")
	}
	for _, p := range files {
		t.Run(strings.TrimPrefix(p, "/var/tmp/vtpmctl-releases/"), func(t *testing.T) {
			s, err := ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			theirs, printed := tool.run(t, p)
			if !sameVariables(s.Variables, theirs) {
				t.Errorf("variables differ from %s's:\n ours:   %v\n theirs: %v", tool, names(s.Variables), vfvNames(theirs))
			}
			sb, err := s.SecureBoot()
			if err != nil {
				t.Fatal(err)
			}
			sigs := vfvSignatures(printed)
			for _, v := range []struct {
				n string
				d *SignatureDB
			}{{"PK", sb.PK}, {"KEK", sb.KEK}, {"db", sb.DB}, {"dbx", sb.DBX}} {
				var ours vfvSigs
				if v.d != nil {
					for _, c := range v.d.Certificates {
						ours.subjects = append(ours.subjects, c.Subject)
					}
					ours.sha256 = v.d.SHA256
				}
				th := sigs[v.n]
				for i, sub := range ours.subjects {
					if i < len(th.subjects) && th.subjects[i] == noCN && strings.Contains(sub, "=") {
						ours.subjects[i] = noCN // a DN: Certificate.Subject when there is no CN
					}
				}
				if strings.Join(ours.subjects, "|") != strings.Join(th.subjects, "|") || ours.sha256 != th.sha256 {
					t.Errorf("%s: ours %q + %d hashes, %s %q + %d hashes", v.n, ours.subjects, ours.sha256, tool, th.subjects, th.sha256)
				}
			}
			t.Logf("%s: %d variables, PK/KEK/db/dbx as %s reads them", p, len(s.Variables), tool)
		})
	}
}

func sorted(l []string) []string {
	out := append([]string{}, l...)
	sort.Strings(out)
	return out
}

func names(vs []Variable) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Name)
	}
	return out
}

// sameVariables: our reading and virt-fw-vars' hold the same variables
// (name, vendor, attributes, data), in any order.
func sameVariables(ours []Variable, theirs []vfvVariable) bool {
	var a, b []string
	for _, v := range ours {
		a = append(a, fmt.Sprintf("%s %s attr=%d data=%s", v.Name, v.Vendor, v.Attributes, hex.EncodeToString(v.Data)))
	}
	for _, v := range theirs {
		b = append(b, fmt.Sprintf("%s %s attr=%d data=%s", v.Name, v.GUID, v.Attr, strings.ToLower(v.Data)))
	}
	return strings.Join(sorted(a), "\n") == strings.Join(sorted(b), "\n")
}

func vfvNames(vs []vfvVariable) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Name)
	}
	return out
}
