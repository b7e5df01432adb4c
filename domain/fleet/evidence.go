package fleet

import (
	"fmt"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/output"
)

// promotion is why the APIs did not make a server its host's report
// promoted a guest: undecided (nothing decided) or unconfirmed (decided
// "no vTPM" from properties as they are now); one of the two is set.
type promotion struct {
	undecided   nova.Undecided
	unconfirmed nova.Unconfirmed
}

// promotions maps promoted servers by ID (withHostEvidence).
type promotions map[string]promotion

// mark writes each promoted guest's reason into the guests at risk. The
// map holds only promoted servers, so a fleet without any costs nothing.
func (why promotions) mark(reps []HostReport) {
	if len(why) == 0 {
		return
	}
	for i := range reps {
		for j := range reps[i].AtRisk {
			g := &reps[i].AtRisk[j]
			if p, ok := why[g.ServerID]; ok {
				g.Undecided, g.Unconfirmed = p.undecided, p.unconfirmed
			}
		}
	}
}

// evidenceLines: a footer line for each guest at risk whose vTPM the
// inventory did not decide (its host's report did), so the table says
// what the JSON's evidence says.
func (f *Result) evidenceLines() []string {
	var out []string
	for i := range f.Hosts {
		for _, g := range f.Hosts[i].AtRisk {
			if decidedByAPIs(g.Evidence) {
				continue
			}
			out = append(out, fmt.Sprintf("evidence: %s (%s) on %s counted as a vTPM guest because %s",
				output.ShownName(g.Name), output.ShownName(g.ServerID), output.ShownName(f.Hosts[i].Host), g.evidenceWords()))
		}
	}
	return out
}

// decidedByAPIs: the evidence the inventory sets itself (or none, from
// an inventory read before evidence existed).
func decidedByAPIs(e nova.Evidence) bool {
	switch e {
	case "", nova.EvidenceFlavor, nova.EvidenceImage, nova.EvidenceInstance, nova.EvidenceVolume:
		return true
	}
	return false
}

// evidenceWords says why a guest the APIs did not decide is one.
func (g RiskGuest) evidenceWords() string {
	what := fmt.Sprintf("its evidence is %s", g.Evidence)
	if g.Evidence == nova.EvidenceHost {
		what = "its host's check report shows a vTPM (<tpm>) in its domain"
	}
	switch {
	case g.Undecided != "":
		return fmt.Sprintf("%s; its image properties at boot could not be read (%s)", what, g.Undecided)
	case g.Unconfirmed == nova.UnconfirmedVolumeNow:
		return what + " though its boot volume's image properties as they are now ask for no vTPM (Nova read them at boot; the API never shows what it read)"
	case g.Unconfirmed == nova.UnconfirmedImageNow:
		return what + " though its image as it is now asks for no vTPM (the server list shows the properties Nova stored at boot only from microversion 2.98)"
	case g.Unconfirmed != "":
		return fmt.Sprintf("%s though its vTPM was decided from properties as they are now (%s)", what, g.Unconfirmed)
	}
	return what
}
