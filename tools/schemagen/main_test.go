package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// TestSchemasCurrent: docs/schemas is what the Go types generate.
func TestSchemasCurrent(t *testing.T) {
	dir := t.TempDir()
	if err := write(dir); err != nil {
		t.Fatal(err)
	}
	const fix = "run `go run ./tools/schemagen -o docs/schemas` and commit the result"
	want, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, p := range want {
		name := filepath.Base(p)
		gen, _ := os.ReadFile(p)
		have, err := os.ReadFile(filepath.Join("..", "..", "docs", "schemas", name))
		if err != nil || !bytes.Equal(gen, have) {
			t.Errorf("docs/schemas/%s is not what the types generate: %s", name, fix)
		}
	}
	have, _ := filepath.Glob(filepath.Join("..", "..", "docs", "schemas", "*"))
	if len(have) != len(want)+len(retired) {
		t.Errorf("docs/schemas has %d files, schemagen writes %d and %d retired stay: %s", len(have), len(want), len(retired), fix)
	}
	for _, r := range retired {
		if _, err := os.Stat(filepath.Join("..", "..", "docs", "schemas", fileName(r.Schema))); err != nil {
			t.Errorf("retired schema %s: its file must stay: %v", r.Schema, err)
		}
		for _, d := range docs {
			if d.Schema == r.Schema {
				t.Errorf("schema %s is both printed and retired", r.Schema)
			}
		}
	}
}

// TestRowsKeyIsAList: each document's table names the list of its JSON
// that -c narrows, and each schema name is vtpmctl.<command>/<n>.
func TestRowsKeyIsAList(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range docs {
		if seen[d.Schema] || !strings.HasPrefix(d.Schema, "vtpmctl.") || !strings.Contains(d.Schema, "/") {
			t.Errorf("schema %q: duplicate or not vtpmctl.<command>/<n>", d.Schema)
		}
		seen[d.Schema] = true
		if d.Type == nil {
			continue
		}
		v := reflect.New(d.Type)
		tab, ok := v.Interface().(output.Tabular)
		if !ok {
			tab, ok = v.Elem().Interface().(output.Tabular)
		}
		if !ok {
			continue // one object (a Recorder)
		}
		key := tab.Table().Key
		s := (&generator{}).document(d)
		p, ok := s["properties"].(schema)[key].(schema)
		if !ok || !strings.Contains(strings.Join(typesOf(p), " "), "array") {
			t.Errorf("%s: Table().Key %q is no list of its document", d.Schema, key)
		}
	}
}

func typesOf(s schema) []string {
	switch x := s["type"].(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, v := range x {
			out = append(out, v.(string))
		}
		return out
	}
	return nil
}

// TestTablesFitWidth: the widest tables (host check's remedies, hosts
// audit's traits and findings, secrets audit's findings and footers)
// drawn at 100 columns have no line wider than 100 where their IDs and
// names fit; where they do not (secrets audit's four IDs), the IDs and
// names are whole and only the table's lines run wider: its footer still
// fits.
func TestTablesFitWidth(t *testing.T) {
	long := "the libvirt secret of this guest is not persistent, so a restart of nova_libvirt loses it and the guest cannot start again until Nova recreates it on a hard reboot"
	rep := &hostcheck.Report{Host: "compute-0.example.org", NovaRelease: nova.Gazpacho}
	for _, id := range []string{"SWTPM-BINARY", "QEMU-TPM-DEVICE", "NOVA-SWTPM-ENABLED", "STATE-DIR-OWNER"} {
		rep.Checks = append(rep.Checks, hostcheck.Check{ID: id, Status: hostcheck.Fail, Message: long, Remedy: "set [libvirt] swtpm_enabled = True in /etc/kolla/nova-compute/nova.conf, then restart nova_compute: " + long})
	}
	rep.Finish()
	traits := []string{"COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_1_2", "COMPUTE_SECURITY_TPM_CRB", "COMPUTE_SECURITY_TPM_TIS", "COMPUTE_SECURITY_TPM_SECRET_SECURITY_HOST"}
	var reports []fleet.HostReport
	for _, h := range []string{"compute-0.example.org", "compute-1.example.org"} {
		r := fleet.HostReport{Report: *rep, Hypervisor: h, ServiceState: "up", ServiceStatus: "enabled"}
		r.Host, r.Traits = h, traits
		reports = append(reports, r)
	}
	audit := fleet.NewResult(nova.Gazpacho, reports, fleet.Summary{Hosts: 2})
	sec := &vtpmsecret.Result{Schema: vtpmsecret.ResultSchema, NotAuditable: map[string]vtpmsecret.NotAuditable{"p-1": {Detail: long}}}
	for _, n := range []string{"win11-finance-terminal-server-01", "win2022-sql-cluster-node-b"} {
		sec.Guests = append(sec.Guests, vtpmsecret.GuestResult{Guest: nova.VTPMGuest{ServerID: "9c1f0a52-8d1e-4b53-a1a8-0c3e5f7b2d11", Name: n, ProjectID: "0f2c6c1e4b0a4c6f9f3e2d1c0b9a8f7e", UserID: "5d4c3b2a1f0e4d3c2b1a0f9e8d7c6b5a", Mode: nova.SecretHost},
			ProjectName: "finance", OwnerName: "svc-deploy", SecretID: "4e3d2c1b-0a9f-4e8d-7c6b-5a4f3e2d1c0b",
			Findings: []vtpmsecret.Finding{{Check: "SECRET-OWNER", Status: result.Fail, Message: long}}, Cannot: []string{"evacuate", "shelve", "rebuild", "rescue"}})
	}
	sec.Orphans = []vtpmsecret.Orphan{{Secret: vtpmsecret.Secret{ID: "4e3d2c1b-0a9f-4e8d-7c6b-5a4f3e2d1c0b", ProjectID: "0f2c6c1e4b0a4c6f9f3e2d1c0b9a8f7e", InstanceID: "9c1f0a52-8d1e-4b53-a1a8-0c3e5f7b2d11", CreatorID: "5d4c3b2a1f0e4d3c2b1a0f9e8d7c6b5a"}, Kind: vtpmsecret.OrphanGone, Reason: long, AgeSeconds: 3 * 86400}}
	// the columns with the long words, where the default table leaves
	// them out (-c brings them back)
	longCols := map[string][]string{"hosts audit": {"host", "traits", "findings"}, "secrets audit": {"server_id", "project_id", "user_id", "secret_id", "findings"}}
	whole := []string{"9c1f0a52-8d1e-4b53-a1a8-0c3e5f7b2d11", "win11-finance-terminal-server-01", "win2022-sql-cluster-node-b", "0f2c6c1e4b0a4c6f9f3e2d1c0b9a8f7e",
		"5d4c3b2a1f0e4d3c2b1a0f9e8d7c6b5a", "4e3d2c1b-0a9f-4e8d-7c6b-5a4f3e2d1c0b"}
	for name, v := range map[string]any{"host check": rep, "hosts audit": audit, "secrets audit": sec} {
		for _, cols := range [][]string{nil, longCols[name]} {
			var b bytes.Buffer
			if err := output.Write(&b, output.Options{Format: "table", MaxWidth: 100, Columns: cols}, v); err != nil {
				t.Fatal(err)
			}
			for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
				if n := utf8.RuneCountInString(l); n > 100 && (name != "secrets audit" || !strings.HasPrefix(l, "|") && !strings.HasPrefix(l, "+")) {
					t.Errorf("%s -c %v: a line of %d columns:\n%s", name, cols, n, l)
				}
			}
			if name == "secrets audit" {
				for _, w := range whole {
					if strings.Contains(b.String(), w[:8]) && !strings.Contains(b.String(), w) {
						t.Errorf("%s -c %v: %s cut:\n%s", name, cols, w, b.String())
					}
				}
			}
		}
		var wide bytes.Buffer
		output.Write(&wide, output.Options{Format: "table", MaxWidth: -1, Columns: longCols[name]}, v)
		if !strings.Contains(wide.String(), long) {
			t.Errorf("%s: unwrapped (a pipe) does not keep its lines whole", name)
		}
	}
}
