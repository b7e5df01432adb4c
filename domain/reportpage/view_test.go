package reportpage

import (
	"bytes"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// viewInputs: 50 stranded guests share one long remedy; a host warns and
// fails with remedies of its own.
func viewInputs() Inputs {
	advice := strings.Repeat("upgrade nova-compute first, ", 20)
	u := &fleet.UpgradeResult{Schema: fleet.UpgradeSchema, From: "zed", To: "2026.1", Advice: []string{advice}}
	for i := 0; i < 50; i++ {
		u.Stranded = append(u.Stranded, fleet.StrandedGuest{VTPMGuest: nova.VTPMGuest{ServerID: "s", Name: "vm", Host: "cmp1"}})
	}
	host := hostcheck.Report{Host: "cmp1", Checks: []hostcheck.Check{{ID: "W", Status: hostcheck.Warn, Message: "warned", Remedy: "do w"},
		{ID: "F", Status: hostcheck.Fail, Message: "failed", Remedy: "do f"}, {ID: "P", Status: hostcheck.Pass}}}
	host.Finish()
	return Inputs{Hosts: []hostcheck.Report{host}, Upgrade: u}
}

// TestRenderViewGroupsRemedies: 50 guests stranded for the same traits
// are one row (count 50, each guest in its list) whose long remedy is
// said once; a remedy two different rows share goes to the remedies
// table, linked from both; a remedy of one row stays in it.
func TestRenderViewGroupsRemedies(t *testing.T) {
	in := viewInputs()
	other := hostcheck.Report{Host: "cmp2", Checks: []hostcheck.Check{{ID: "G", Status: hostcheck.Fail, Message: "other", Remedy: "do f"}}}
	other.Finish()
	in.Hosts = append(in.Hosts, other)
	var b bytes.Buffer
	if err := RenderView(&b, in, View{}, nil); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	advice := strings.Repeat("upgrade nova-compute first, ", 20)
	if n := strings.Count(html, advice); n != 1 {
		t.Errorf("the shared remedy appears %d times, want once", n)
	}
	if n := strings.Count(html, "<td>STRANDED</td>"); n != 1 || !strings.Contains(html, `<td>STRANDED</td><td class="count">50</td><td><details><summary>50 guests: vm, vm, vm and 47 more</summary>`) ||
		strings.Count(html, "<li>vm (s) on cmp1</li>") != 50 {
		t.Errorf("the 50 stranded guests are %d row(s), not one with its count and the guests listed", n)
	}
	if !strings.Contains(html, `<tr id="r1"><td>R1</td><td>2</td><td>do f</td>`) || strings.Count(html, `<a href="#r1">R1</a>`) != 2 {
		t.Error("the remedy two rows share is not listed once with its count, or the rows do not link to it")
	}
	if !strings.Contains(html, "Remedy: do w") {
		t.Error("a remedy said once left its row")
	}
}

func TestRenderViewFiltersAndSummarises(t *testing.T) {
	in := viewInputs()
	for _, c := range []struct {
		name     string
		view     View
		has, not []string
	}{
		{"status warn", View{Status: result.Filter{result.Warn}}, []string{"Remedy: do w", "(1 of 52)", "51 failing finding(s), 52 finding(s) in all"}, []string{"Remedy: do f", "<td>STRANDED</td>", `<a href="#f1">`, "Remedies"}},
		{"status skip", View{Status: result.Filter{result.Skip}}, []string{"No finding of these statuses"}, []string{"Nothing to report"}},
		{"summary", View{Summary: true}, []string{"summary view", "Upgrade to 2026.1", "50 guest(s) stranded"}, []string{"<table>", "Remedy:"}},
	} {
		var b bytes.Buffer
		if err := RenderView(&b, in, c.view, nil); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.has {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: page lacks %q", c.name, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(b.String(), w) {
				t.Errorf("%s: page has %q", c.name, w)
			}
		}
	}
}

func TestInputsWorst(t *testing.T) {
	warnOnly := hostcheck.Report{Host: "h", Checks: []hostcheck.Check{{ID: "W", Status: hostcheck.Warn}}}
	for _, c := range []struct {
		name string
		in   Inputs
		want result.Status
	}{
		{"nothing", Inputs{}, result.Pass},
		{"a warning", Inputs{Hosts: []hostcheck.Report{warnOnly}}, result.Warn},
		{"a stranded guest", viewInputs(), result.Fail},
	} {
		if got := c.in.Worst(); got != c.want {
			t.Errorf("%s: Worst = %s, want %s", c.name, got, c.want)
		}
	}
}
