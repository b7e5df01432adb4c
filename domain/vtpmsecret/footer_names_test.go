package vtpmsecret

import (
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/quote"
)

// TestEvidenceFooterHostileName: a guest its secret decided, named to
// forge a line of ours, shows Go-quoted on one evidence line; an
// ordinary name as it is. Before, the name was printed raw and
// "vtpmctl: all checks passed" stood alone on stdout.
func TestEvidenceFooterHostileName(t *testing.T) {
	const forged = "vtpmctl: all checks passed"
	guest := func(id, name string) GuestResult {
		return GuestResult{Guest: Guest{ServerID: id, Name: name, Evidence: nova.EvidenceSecret}, EvidenceReason: "a secret is named for it"}
	}
	r := &Result{Guests: []GuestResult{guest("s1", "x\n"+forged), guest("s2", "web-01")}}
	foot := r.Table().FooterLines()
	for _, l := range foot {
		if quote.HasControl(l) {
			t.Errorf("footer line %q holds a control character", l)
		}
	}
	text := strings.Join(foot, "\n")
	for _, want := range []string{`evidence: "x\n` + forged + `" (s1) audited`, "evidence: web-01 (s2) audited"} {
		if !strings.Contains(text, want) {
			t.Errorf("footer lacks %s:\n%s", want, text)
		}
	}
	// gathered while the rows are walked, the footer is the same
	tb := r.Table()
	for range tb.Walk {
	}
	if walked := strings.Join(tb.FooterLines(), "\n"); walked != text {
		t.Errorf("the footer gathered by a walk:\n%s\nwithout one:\n%s", walked, text)
	}
	for _, l := range strings.Split(tableText(t, r), "\n") {
		if strings.HasPrefix(l, forged) {
			t.Errorf("the table forges %q", forged)
		}
	}
}
