package secrets

import (
	"fmt"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// ModeChangeStatus is a mode plan's verdict as a result: pass when the
// guest is in the mode or a resize takes it there, warn when Nova allows
// the resize but no flavor fits yet, skip when the release has no modes,
// fail when Nova refuses (or the server has no vTPM).
func ModeChangeStatus(v nova.ModeChangeVerdict) result.Status {
	switch v {
	case nova.ModeChangeResize, nova.ModeChangeAlready:
		return result.Pass
	case nova.ModeChangeNoFlavor:
		return result.Warn
	case nova.ModeChangeNoModes:
		return result.Skip
	}
	return result.Fail
}

// Table is one row per guest, worst result first; what each verdict needs
// and does to the secret and TPM state follows once per distinct text (a
// fleet repeats it). Columns are the servers' JSON keys, and detail
// (Nova's refusal, or the command that creates a fitting flavor).
func (r *ModeChangeResult) Table() output.Table {
	t := output.Table{Key: "servers", Verdict: "result", Wrap: []string{"detail"},
		Columns: []string{"result", "server_id", "name", "project_id", "flavor", "from", "to", "verdict", "target_flavors", "detail"}}
	if r.NoModes != "" {
		t.Footer = append(t.Footer, r.NoModes)
		return t
	}
	seen := map[string]bool{}
	for _, s := range r.Servers {
		detail := s.Refusal
		if s.CreateFlavor != "" {
			detail = "no fitting flavor: " + s.CreateFlavor
		}
		t.Rows = append(t.Rows, output.Record{{Name: "result", Value: ModeChangeStatus(s.Verdict)}, {Name: "server_id", Value: s.ServerID}, {Name: "name", Value: s.Name},
			{Name: "project_id", Value: s.ProjectID}, {Name: "flavor", Value: s.Flavor},
			{Name: "from", Value: string(s.From)}, {Name: "to", Value: string(s.To)}, {Name: "verdict", Value: string(s.Verdict)},
			{Name: "target_flavors", Value: s.Flavors}, {Name: "detail", Value: detail}})
		for _, line := range append(append([]string{}, s.Needs...), "secret: "+s.Secret, "TPM state: "+s.TPMState) {
			if k := string(s.From) + "→" + string(s.To) + ": " + line; !seen[k] && !strings.HasSuffix(line, ": ") {
				seen[k] = true
				t.Footer = append(t.Footer, k)
			}
		}
	}
	for _, w := range r.Warnings {
		t.Footer = append(t.Footer, "warning: "+w)
	}
	t.Footer = append(t.Footer, fmt.Sprintf("%d guests, %d cannot reach mode %s (Nova %s)", len(r.Servers), r.Unreached(), r.To, output.Text(r.NovaRelease)))
	return t
}
