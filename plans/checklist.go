package plans

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/vtpmctl/vtpmctl/internal/quote"
)

// ChecklistItem is one line of a VM's cutover checklist.
type ChecklistItem struct {
	VM     string `json:"vm"`
	Phase  string `json:"phase"` // before, after, limits, flag
	Item   string `json:"item"`
	Target string `json:"target"`
}

// Checklist flattens the plan's per-VM checklists and flags.
func Checklist(p *Plan) []ChecklistItem {
	var out []ChecklistItem
	for _, vm := range p.VMs {
		target := vm.TargetFlavor + " / " + vm.TargetImage + " / vTPM " + vm.TargetVTPM
		for _, f := range vm.Flags {
			out = append(out, ChecklistItem{vm.Name, "flag", f, target})
		}
		for _, c := range vm.Checklist {
			out = append(out, ChecklistItem{vm.Name, phaseOf(c), c, target})
		}
	}
	return out
}

func phaseOf(item string) string {
	switch {
	case strings.HasPrefix(item, "after first boot"):
		return "after"
	case strings.HasPrefix(item, "on the target"), strings.HasPrefix(item, "snapshots and backups"):
		return "limits"
	}
	return "before"
}

// WriteChecklist renders the checklist as markdown, csv or json.
func WriteChecklist(w io.Writer, p *Plan, format string) error {
	items := Checklist(p)
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if items == nil {
			items = []ChecklistItem{}
		}
		return enc.Encode(items)
	case "csv":
		cw := csv.NewWriter(w)
		cw.Write([]string{"vm", "phase", "item", "target"})
		for _, it := range items {
			cw.Write([]string{quote.CSVCell(it.VM), quote.CSVCell(it.Phase), quote.CSVCell(it.Item), quote.CSVCell(it.Target)})
		}
		cw.Flush()
		return cw.Error()
	}
	fmt.Fprintln(w, "# Cutover checklist")
	fmt.Fprintln(w)
	for _, vm := range p.VMs {
		md := quote.Markdown
		fmt.Fprintf(w, "## %s\n\n", md(vm.Name))
		fmt.Fprintf(w, "%s, %s firmware, Secure Boot %s, source vTPM **%s** → flavor %s, image %s, vTPM %s\n\n",
			md(vm.GuestOS), md(vm.Firmware), md(vm.SecureBoot), md(vm.SourceVTPM), md(vm.TargetFlavor), md(vm.TargetImage), md(vm.TargetVTPM))
		for _, f := range vm.Flags {
			fmt.Fprintf(w, "- **Flag:** %s\n", md(f))
		}
		for _, phase := range []struct{ key, title string }{{"before", "Before cutover"}, {"after", "After cutover"}, {"limits", "Operational limits on the target"}} {
			var lines []string
			for _, c := range vm.Checklist {
				if phaseOf(c) == phase.key {
					lines = append(lines, c)
				}
			}
			if len(lines) == 0 {
				continue
			}
			fmt.Fprintf(w, "\n%s:\n\n", phase.title)
			for _, l := range lines {
				fmt.Fprintf(w, "- [ ] %s\n", md(l))
			}
		}
		fmt.Fprintln(w)
	}
	return nil
}
