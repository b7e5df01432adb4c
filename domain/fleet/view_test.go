package fleet

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

func TestResultOnlyKeepsWholeHosts(t *testing.T) {
	rep := func(host string, ss ...result.Status) HostReport {
		r := HostReport{Report: hostcheck.Report{Host: host}}
		for _, s := range ss {
			r.Checks = append(r.Checks, hostcheck.Check{ID: "X", Status: s})
		}
		return r
	}
	f := NewResult(nova.Zed, []HostReport{rep("a", result.Pass), rep("b", result.Warn, result.Fail), rep("c", result.Warn)}, Summary{Hosts: 3, Failing: 1})
	for _, c := range []struct {
		keep result.Filter
		want string
	}{
		{nil, "a b c"},
		{result.Filter{result.Fail}, "b"},
		{result.Filter{result.Warn}, "c"},
		{result.Filter{result.Pass, result.Warn}, "a c"},
		{result.Filter{result.Skip}, ""},
	} {
		got := f.Only(c.keep)
		var names []string
		for _, h := range got.Hosts {
			names = append(names, h.Host)
		}
		if strings.Join(names, " ") != c.want || got.Summary.Failing != 1 || got.Summary.Hosts != 3 {
			t.Errorf("Only(%v) = %v %+v, want %s and the whole summary", c.keep, names, got.Summary, c.want)
		}
	}
	v := f.SummaryView()
	b, _ := json.Marshal(v)
	if s := string(b); !strings.Contains(s, `"schema":"vtpmctl.hosts-audit/2"`) || !strings.Contains(s, `"hosts":[]`) || !strings.Contains(s, `"hosts_failing":1`) {
		t.Errorf("summary document: %s", s)
	}
	if len(f.Hosts) != 3 {
		t.Error("a view changed its receiver")
	}
}

func TestUpgradeViews(t *testing.T) {
	u := UpgradeResult{Schema: UpgradeSchema, From: "zed", To: "2026.1",
		Hosts:    []UpgradeHost{{Host: "a", Loses: true}, {Host: "b"}},
		Stranded: []StrandedGuest{{VTPMGuest: nova.VTPMGuest{ServerID: "s1"}}}, UpgradeNow: []string{"a"},
		KnownBugs: []KnownBugFix{{FixedByUpgrade: true}, {}},
		Summary:   UpgradeSummary{Hosts: 2, Losing: 1, VTPMGuests: 3, Stranded: 1, KnownBugs: 2, Fixed: 1}}
	for _, c := range []struct {
		keep result.Filter
		want string
	}{
		{result.Filter{result.Warn}, "a"},
		{result.Filter{result.Pass}, "b"},
		{result.Filter{result.Fail}, ""},
	} {
		got := u.Only(c.keep)
		var names []string
		for _, h := range got.Hosts {
			names = append(names, h.Host)
		}
		if strings.Join(names, " ") != c.want || len(got.Stranded) != 1 || len(got.UpgradeNow) != 1 {
			t.Errorf("Only(%v) = %v, stranded %d; want %s and every stranded guest (the verdict)", c.keep, names, len(got.Stranded), c.want)
		}
	}
	v := u.SummaryView()
	if v.Summary != u.Summary {
		t.Errorf("summary %+v, want the whole run's %+v", v.Summary, u.Summary)
	}
	b, _ := json.Marshal(v)
	if s := string(b); !strings.Contains(s, `"schema":"vtpmctl.upgrade-check/2"`) || !strings.Contains(s, `"stranded_guests":[]`) || !strings.Contains(s, `"summary":{"hosts_up_and_enabled":2,`) {
		t.Errorf("summary document: %s", s)
	}
	if len(u.Hosts) != 2 || len(u.Stranded) != 1 {
		t.Error("a view changed its receiver")
	}
}
