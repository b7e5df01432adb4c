package secrets

import (
	"fmt"
	"strings"

	"github.com/vtpmctl/vtpmctl/internal/output"
)

// Table is one row per guest; what each verdict needs and does to the
// secret and TPM state follows once per distinct text (a fleet repeats it).
func (r *ModeChangeResult) Table() output.Table {
	t := output.Table{Key: "servers", Columns: []string{"server", "project", "flavor", "from", "to", "verdict", "target_flavors", "detail"}}
	if r.NoModes != "" {
		t.Footer = append(t.Footer, r.NoModes)
		return t
	}
	seen := map[string]bool{}
	for _, s := range r.Servers {
		srv := s.ServerID
		if s.Name != "" {
			srv = s.Name + " (" + s.ServerID + ")"
		}
		detail := s.Refusal
		if s.CreateFlavor != "" {
			detail = "no fitting flavor: " + s.CreateFlavor
		}
		t.Rows = append(t.Rows, output.Record{{Name: "server", Value: srv}, {Name: "project", Value: s.ProjectID}, {Name: "flavor", Value: s.Flavor},
			{Name: "from", Value: string(s.From)}, {Name: "to", Value: string(s.To)}, {Name: "verdict", Value: string(s.Verdict)},
			{Name: "target_flavors", Value: strings.Join(s.Flavors, ", ")}, {Name: "detail", Value: detail}})
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
