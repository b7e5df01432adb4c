package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/migration"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// TestViewsNarrowInJSON: -c with -f json on a view (--summary, --status)
// narrows the view's list and keeps its document, as on the whole
// result; a view whose table named no list failed with `has no list ""
// for -c to narrow`.
func TestViewsNarrowInJSON(t *testing.T) {
	secrets := vtpmsecret.Result{Schema: vtpmsecret.ResultSchema, Summary: vtpmsecret.Summary{Guests: 2},
		Guests: []vtpmsecret.GuestResult{{Guest: vtpmsecret.Guest{ServerID: "s1", Name: "win1"}, Findings: []vtpmsecret.Finding{{Check: "SECRET-OWNER", Status: result.Fail}}},
			{Guest: vtpmsecret.Guest{ServerID: "s2", Name: "win2"}}}}
	hosts := fleet.Result{Schema: fleet.Schema, Hosts: []fleet.HostReport{{Report: hostcheck.Report{Host: "cmp1", Checks: []hostcheck.Check{{ID: "VIRT-TYPE", Status: hostcheck.Fail}}}, ServiceState: "up"},
		{Report: hostcheck.Report{Host: "cmp2"}, ServiceState: "up"}}}
	upgrade := fleet.UpgradeResult{Schema: fleet.UpgradeSchema, Hosts: []fleet.UpgradeHost{{Host: "cmp1", Loses: true}, {Host: "cmp2"}}}
	host := hostcheck.Report{Schema: hostcheck.ReportSchema, Host: "cmp1", Checks: []hostcheck.Check{{ID: "VIRT-TYPE", Status: hostcheck.Fail, Message: "lxc"}, {ID: "SWTPM", Status: hostcheck.Pass}}}
	verify := migration.VerifyResult{Schema: migration.VerifySchema, VMs: []migration.VMVerdict{{VM: "vm1", Verdict: migration.Missing}, {VM: "vm2", Verdict: migration.Verified}}}
	for _, c := range []struct {
		name    string
		schema  string
		key     string
		columns []string
		whole   any
		summary func() any
		only    func(result.Filter) any
		kept    string // the one row --status fail keeps: the value of columns[0]
	}{
		{"secrets audit", vtpmsecret.ResultSchema, "guests", []string{"server_id"}, &secrets,
			func() any { return secrets.SummaryView() }, func(f result.Filter) any { r := secrets.Only(f); return &r }, "s1"},
		{"hosts audit", fleet.Schema, "hosts", []string{"host"}, &hosts,
			func() any { return hosts.SummaryView() }, func(f result.Filter) any { r := hosts.Only(f); return &r }, "cmp1"},
		{"upgrade check", fleet.UpgradeSchema, "hosts", []string{"host"}, &upgrade,
			func() any { return upgrade.SummaryView() }, func(f result.Filter) any { r := upgrade.Only(f); return &r }, ""}, // no host fails: --status fail keeps none
		{"host check", hostcheck.ReportSchema, "checks", []string{"id"}, &host,
			func() any { return host.SummaryView() }, func(f result.Filter) any { r := host.Only(f); return &r }, "VIRT-TYPE"},
		{"plan verify", migration.VerifySchema, "vms", []string{"vm"}, &verify,
			func() any { return verify.SummaryView() }, func(f result.Filter) any { r := verify.Only(f); return &r }, "vm1"},
	} {
		for _, view := range []viewOptions{{Summary: true}, {Status: []string{"fail"}}} {
			if err := view.parse(); err != nil {
				t.Fatal(err)
			}
			o := output.Options{Format: "json", Columns: c.columns}
			var b bytes.Buffer
			if err := output.Write(&b, o, view.pick(o, c.whole, c.summary, c.only)); err != nil {
				t.Errorf("%s %+v -c %v -f json: %v", c.name, view, c.columns, err)
				continue
			}
			var doc map[string]any
			if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
				t.Fatalf("%s: %v\n%s", c.name, err, b.String())
			}
			rows, ok := doc[c.key].([]any)
			if doc["schema"] != c.schema || !ok {
				t.Errorf("%s %+v: schema %v, %s %v: the document was not kept", c.name, view, doc["schema"], c.key, doc[c.key])
				continue
			}
			want := 0
			if !view.Summary && c.kept != "" {
				want = 1
			}
			if len(rows) != want {
				t.Errorf("%s %+v: %d rows in %s, want %d", c.name, view, len(rows), c.key, want)
				continue
			}
			if want == 1 {
				if row := rows[0].(map[string]any); len(row) != 1 || row[c.columns[0]] != c.kept {
					t.Errorf("%s %+v: row %v, want only %s %s", c.name, view, row, c.columns[0], c.kept)
				}
			}
		}
	}
}
