package plans

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/vtpmctl/vtpmctl/internal/output"
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
		switch vm.BitLockerEscrow {
		case "unconfirmed":
			out = append(out, ChecklistItem{vm.Name, "before", "BitLocker recovery keys NOT confirmed escrowed: confirm every volume's key is in AD DS / Entra ID / MBAM, then set bitlocker_escrow: confirmed for this VM in the plan", target})
		case "confirmed":
			out = append(out, ChecklistItem{vm.Name, "before", "BitLocker recovery keys confirmed escrowed", target})
		}
		for _, c := range vm.Checklist {
			out = append(out, ChecklistItem{vm.Name, phaseOf(c), c, target})
		}
		for _, c := range vm.FollowUp {
			out = append(out, ChecklistItem{vm.Name, "follow-up", c, target})
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

// CutoverChecklist is the result of `plan checklist`: its JSON is the
// items, its table one row per item, and it is a markdown document (the
// default when no -f is given).
type CutoverChecklist struct {
	Items []ChecklistItem
	plan  *Plan
}

// NewChecklist is the plan's cutover checklist.
func NewChecklist(p *Plan) *CutoverChecklist {
	items := Checklist(p)
	if items == nil {
		items = []ChecklistItem{}
	}
	return &CutoverChecklist{Items: items, plan: p}
}

// MarshalJSON writes the items.
func (c *CutoverChecklist) MarshalJSON() ([]byte, error) { return json.Marshal(c.Items) }

// Table is one row per item.
func (c *CutoverChecklist) Table() output.Table {
	t := output.Table{Columns: []string{"vm", "phase", "item", "target"}}
	for _, it := range c.Items {
		t.Rows = append(t.Rows, output.Record{{Name: "vm", Value: it.VM}, {Name: "phase", Value: it.Phase}, {Name: "item", Value: it.Item}, {Name: "target", Value: it.Target}})
	}
	return t
}

// Markdown writes the checklist document, every name escaped.
func (c *CutoverChecklist) Markdown(w io.Writer) error {
	p := c.plan
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "# Cutover checklist")
	fmt.Fprintln(bw)
	md := quote.Markdown
	for _, vm := range p.VMs {
		fmt.Fprintf(bw, "## %s\n\n", md(vm.Name))
		fmt.Fprintf(bw, "%s, %s firmware, Secure Boot %s, source vTPM **%s** → flavor %s, image %s, vTPM %s\n\n",
			md(vm.GuestOS), md(vm.Firmware), md(vm.SecureBoot), md(vm.SourceVTPM), md(vm.TargetFlavor), md(vm.TargetImage), md(vm.TargetVTPM))
		for _, f := range vm.Flags {
			fmt.Fprintf(bw, "- **Flag:** %s\n", md(f))
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
			fmt.Fprintf(bw, "\n%s:\n\n", phase.title)
			for _, l := range lines {
				fmt.Fprintf(bw, "- [ ] %s\n", md(l))
			}
		}
		fmt.Fprintln(bw)
	}
	return bw.Flush()
}
