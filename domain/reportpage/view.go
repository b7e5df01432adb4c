package reportpage

import (
	"fmt"

	"github.com/vtpmctl/vtpmctl/domain/advice"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// View is what the page lists: every finding (the zero View), only those
// whose status Status keeps, or (Summary) the tiles and charts alone.
// The tiles, charts and counts are always the whole run's.
type View struct {
	Summary bool
	Status  result.Filter
}

// Remedy is one remedy text that several listed rows share, listed once
// with how many findings: at 2,000 stranded guests the same advice
// repeated in every row made the page megabytes long.
type Remedy struct {
	ID    string // the anchor the rows link to: r1, r2, …
	Label string // R1, R2, …
	Count int
	Text  string
}

// row is a listed group of findings; RemedyID links a shared remedy
// instead of repeating it.
type row struct {
	Group
	RemedyID, RemedyLabel string
}

// Worst is the worst status among every finding of the run (Pass when
// there is none), whatever a view lists: what a pipeline fails on.
func (in Inputs) Worst() result.Status {
	p := page{Inputs: in, words: advice.Plain{}} // a remedy's words change no status
	p.build()
	ss := make([]result.Status, len(p.Findings))
	for i, f := range p.Findings {
		ss[i] = f.Status
	}
	return result.Worst(ss...)
}

// apply keeps the rows the view lists, groups their remedies, and names
// the worst groups on the first screen (linked where listed).
func (p *page) apply(v View) {
	p.View = v
	listed := map[string]bool{}
	if v.Summary {
		p.Risks, p.CertsHosts, p.NeedsHostReports = nil, nil, ""
	} else {
		rows, findings := map[string]int{}, map[string]int{} // remedy text → rows, findings
		for _, g := range p.Groups {
			if v.Status.Keeps(g.Status) {
				p.Shown = append(p.Shown, row{Group: g})
				p.Listed += g.Count()
				listed[g.ID] = true
				if g.Remedy != "" {
					rows[g.Remedy]++
					findings[g.Remedy] += g.Count()
				}
			}
		}
		ids := map[string]int{} // remedy text → index in p.Remedies
		for i := range p.Shown {
			r := &p.Shown[i]
			if rows[r.Remedy] < 2 {
				continue // one row: the remedy stays in it
			}
			k, ok := ids[r.Remedy]
			if !ok {
				k = len(p.Remedies)
				ids[r.Remedy] = k
				p.Remedies = append(p.Remedies, Remedy{ID: fmt.Sprintf("r%d", k+1), Label: fmt.Sprintf("R%d", k+1), Count: findings[r.Remedy], Text: r.Remedy})
			}
			r.RemedyID, r.RemedyLabel = p.Remedies[k].ID, p.Remedies[k].Label
		}
	}
	for _, g := range p.Groups {
		if g.Status != result.Fail && g.Status != result.Warn {
			continue
		}
		if len(p.Attention) == attentionMax {
			p.More++
			continue
		}
		p.Attention = append(p.Attention, Attention{Group: g, Linked: listed[g.ID]})
	}
}
