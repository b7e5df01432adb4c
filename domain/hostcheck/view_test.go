package hostcheck

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/result"
)

func TestReportViews(t *testing.T) {
	r := Report{Schema: ReportSchema, Host: "cmp1", Checks: []Check{{ID: "A", Status: Pass}, {ID: "B", Status: Warn}, {ID: "C", Status: Fail}, {ID: "D", Status: Skip}},
		VTPMGuests: []Guest{{UUID: "u1"}}, Traits: []string{"COMPUTE_SECURITY_TPM_2_0"}}
	r.Finish()
	for _, c := range []struct {
		keep result.Filter
		want string
	}{
		{nil, "A B C D"},
		{result.Filter{result.Fail, result.Warn}, "B C"},
		{result.Filter{result.Skip}, "D"},
	} {
		got := r.Only(c.keep)
		var ids []string
		for _, ch := range got.Checks {
			ids = append(ids, ch.ID)
		}
		if strings.Join(ids, " ") != c.want || got.Summary != r.Summary {
			t.Errorf("Only(%v) = %v %+v, want %s and the whole summary", c.keep, ids, got.Summary, c.want)
		}
	}
	v := r.SummaryView()
	b, _ := json.Marshal(v)
	if s := string(b); !strings.Contains(s, `"schema":"vtpmctl.host-check/1"`) || !strings.Contains(s, `"checks":[]`) || !strings.Contains(s, `"fail":1`) || !strings.Contains(s, "COMPUTE_SECURITY_TPM_2_0") {
		t.Errorf("summary document: %s", s)
	}
	rows := map[string]any{}
	for _, rec := range v.Table().Rows {
		rows[rec.Get("summary").(string)] = rec.Get("value")
	}
	if rows["fail"] != 1 || rows["vtpm_guests"] != 1 || rows["host"] != "cmp1" {
		t.Errorf("summary table: %v", rows)
	}
	if len(r.Checks) != 4 {
		t.Error("a view changed its receiver")
	}
}
