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

func TestRenderViewGroupsRemedies(t *testing.T) {
	in := viewInputs()
	var b bytes.Buffer
	if err := RenderView(&b, in, View{}, nil); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	advice := strings.Repeat("upgrade nova-compute first, ", 20)
	if n := strings.Count(html, advice); n != 1 {
		t.Errorf("the shared remedy appears %d times, want once", n)
	}
	if !strings.Contains(html, `<tr id="r1"><td>R1</td><td>50</td>`) || strings.Count(html, `<a href="#r1">R1</a>`) != 50 {
		t.Error("the shared remedy is not listed once with its count, or the rows do not link to it")
	}
	if !strings.Contains(html, "Remedy: do w") || !strings.Contains(html, "Remedy: do f") {
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
		{"status warn", View{Status: result.Filter{result.Warn}}, []string{"Remedy: do w", "(1 of 52)", "51 failing finding(s), 52 finding(s) in all"}, []string{"Remedy: do f", "STRANDED", "Remedies"}},
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
