package fleet

import (
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/quote"
)

// TestEvidenceFooterHostileName: a server named to forge a line of ours
// ("x\nvtpmctl: all checks passed") shows Go-quoted, on one line, in the
// evidence footers of hosts audit and of its drain view, and so does a
// hostile host name; an ordinary name shows as it is. Before, the names
// were printed raw and the forged line stood alone on stdout.
func TestEvidenceFooterHostileName(t *testing.T) {
	const forged = "vtpmctl: all checks passed"
	guests := []RiskGuest{
		{ServerID: "s1", Name: "x\n" + forged, Evidence: nova.EvidenceHost},
		{ServerID: "s2", Name: "web-01", Evidence: nova.EvidenceHost},
	}
	rep := HostReport{AtRisk: guests}
	rep.Host = "cmp1\x1b[2J"
	audit := &Result{Hosts: []HostReport{rep}}
	drain := &DrainResult{Host: rep.Host, Guests: guests, Summary: map[DrainAction]int{}}
	for name, tab := range map[string]output.Tabular{"audit": audit, "drain": drain} {
		foot := tab.Table().Footer
		for _, l := range foot {
			if quote.HasControl(l) {
				t.Errorf("%s: footer line %q holds a control character", name, l)
			}
		}
		text := strings.Join(foot, "\n")
		for _, want := range []string{`evidence: "x\n` + forged + `" (s1)`, "evidence: web-01 (s2)", `"cmp1\x1b[2J"`} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: footer lacks %s:\n%s", name, want, text)
			}
		}
		var b strings.Builder
		if err := output.Write(&b, output.Options{Format: "table"}, tab); err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(b.String(), "\n") {
			if strings.HasPrefix(l, forged) {
				t.Errorf("%s: the output forges %q:\n%s", name, forged, b.String())
			}
		}
	}
}
