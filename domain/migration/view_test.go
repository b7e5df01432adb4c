package migration

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/result"
)

func TestVerifyViews(t *testing.T) {
	vm := func(name, verdict string, ss ...result.Status) VMVerdict {
		v := VMVerdict{VM: name, Verdict: verdict}
		for _, s := range ss {
			v.Checks = append(v.Checks, VerifyCheck{Check: CheckVTPM, Status: s})
		}
		return v
	}
	r := VerifyResult{Schema: VerifySchema, Verified: 2, Missing: 1, NotFound: 1, Unconfirmed: []string{"w1", "w2"},
		VMs: []VMVerdict{vm("ok", Verified, result.Pass), vm("warned", Verified, result.Pass, result.Warn), vm("broken", Missing, result.Fail), vm("gone", NotFound)}}
	for _, c := range []struct {
		keep result.Filter
		want string
	}{
		{result.Filter{result.Fail}, "broken gone"}, // not found has no check, and fails
		{result.Filter{result.Warn}, "warned"},
		{result.Filter{result.Pass, result.Skip}, "ok"},
	} {
		got := r.Only(c.keep)
		var names []string
		for _, v := range got.VMs {
			names = append(names, v.VM)
		}
		if strings.Join(names, " ") != c.want || got.Missing != 1 || got.Verified != 2 || len(got.Unconfirmed) != 2 {
			t.Errorf("Only(%v) = %v, want %s and the whole run's counts", c.keep, names, c.want)
		}
	}
	v := r.SummaryView()
	b, _ := json.Marshal(v)
	if s := string(b); !strings.Contains(s, `"schema":"vtpmctl.plan-verify/1"`) || !strings.Contains(s, `"vms":[]`) || !strings.Contains(s, `"bitlocker_escrow_unconfirmed_count":2`) || !strings.Contains(s, `"missing":1`) {
		t.Errorf("summary document: %s", s)
	}
	if rows := v.Table().Rows; rows[3].Get("value") != 2 {
		t.Errorf("summary table: %v", rows)
	}
	if len(r.VMs) != 4 {
		t.Error("a view changed its receiver")
	}
}
