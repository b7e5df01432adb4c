package main

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// plan import says which Nova it targets, on stderr and in the plan, and
// takes the release from the named cloud: a Zed cloud (compute 2.93) is
// never offered hw:tpm_secret_security, which Zed's Nova does not know.
func TestPlanImportTargetsTheCloudsRelease(t *testing.T) {
	inventory := []string{"plan", "import", "--rvtools", "../../examples/inventory/RVTools_tabvInfo.csv",
		"--govc", "../../examples/inventory/govc-vm.info.json", "--flavors", "../../examples/catalogue.yaml"}
	for _, tc := range []struct {
		name      string
		cloud     bool
		args      []string
		stderr    string
		release   string
		secretSec bool // the plan mentions hw:tpm_secret_security
	}{
		{"default", false, nil, "vtpmctl: plan import: targeting Nova 2026.1 Gazpacho (nova 33) (the default; --nova-release or --os-cloud to target another)", "2026.1", true},
		{"flag", false, []string{"--nova-release", "2024.2"}, "vtpmctl: plan import: targeting Nova 2024.2 Dalmatian (nova 30) (--nova-release)", "2024.2", false},
		{"zed cloud", true, nil, "vtpmctl: plan import: targeting Nova Zed (nova 26) (cloud fake)", "zed", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var pre []string
			if tc.cloud {
				c := fakecloud.New(t).Standard()
				defer func() {
					if n := len(c.Sent()); n != 2 { // the token, the version document
						t.Errorf("%d requests: %q", n, c.Requests)
					}
				}()
				pre = []string{"--os-cloud", "fake"}
			}
			out, errs, code := runCLI(t, append(append(pre, inventory...), tc.args...)...)
			if code != 0 || !strings.Contains(errs, tc.stderr+"\n") {
				t.Fatalf("exit %d, stderr:\n%s\nwant the line %q", code, errs, tc.stderr)
			}
			if !strings.Contains(out, "  nova_release: \""+tc.release+"\"\n") && !strings.Contains(out, "  nova_release: "+tc.release+"\n") {
				t.Errorf("the plan does not name release %s:\n%.600s", tc.release, out)
			}
			if got := strings.Contains(out, "hw:tpm_secret_security"); got != tc.secretSec {
				t.Errorf("hw:tpm_secret_security in the plan: %v, want %v", got, tc.secretSec)
			}
		})
	}
}

// An RVTools .xlsx (its default export) is named for what it is, in one
// line with what to do, exit 2, nothing written: it read as a CSV
// without a "VM" column.
func TestPlanImportWorkbook(t *testing.T) {
	dir := t.TempDir()
	xlsx := filepath.Join(dir, "RVTools_export_all.xlsx")
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	if w, err := z.Create("xl/worksheets/sheet1.xml"); err != nil {
		t.Fatal(err)
	} else {
		w.Write([]byte("<worksheet/>"))
	}
	z.Close()
	if err := os.WriteFile(xlsx, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(dir, "plan.yaml")
	out, errs, code := runCLI(t, "plan", "import", "--rvtools", xlsx, "--flavors", "../../examples/catalogue.yaml", "--nova-release", "zed", "-o", plan)
	want := "vtpmctl: --rvtools: " + xlsx + " is a ZIP file, such as an .xlsx workbook (RVTools' default export): export the vInfo tab as CSV (RVTools -c ExportvInfo2csv, or the tab's Export to CSV) and pass that file\n"
	if code != exitUsage || out != "" || !strings.HasSuffix(errs, want) || strings.Count(errs, "\n") > 2 {
		t.Errorf("exit %d\n%s\nwant %s", code, errs, want)
	}
	if _, err := os.Stat(plan); err == nil {
		t.Error("a plan was written")
	}
}
