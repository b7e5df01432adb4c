package migration

import (
	"bufio"
	"fmt"
	"io"

	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/quote"
)

// Phase is when a checklist item is done. Every item gets its phase where
// it is made; renderers group by it and never read the item's words.
type Phase string

// The phases, in the order the markdown document lists them.
const (
	PhaseFlag     Phase = "flag"      // a problem the plan found
	PhaseBefore   Phase = "before"    // before cutover
	PhaseAfter    Phase = "after"     // after the first boot on the target
	PhaseLimits   Phase = "limits"    // what the target cannot do
	PhaseFollowUp Phase = "follow-up" // work after cutover, in order
)

// phaseTitles are the markdown sections; flags are listed apart, above.
var phaseTitles = []struct {
	phase Phase
	title string
}{{PhaseBefore, "Before cutover"}, {PhaseAfter, "After cutover"}, {PhaseLimits, "Operational limits on the target"}, {PhaseFollowUp, "Follow-up after cutover"}}

// ChecklistItem is one line of a VM's cutover checklist.
type ChecklistItem struct {
	VM     string `json:"vm"`
	Phase  Phase  `json:"phase"`
	Item   string `json:"item"`
	Target string `json:"target"`
	vm     int    // index in Plan.VMs: two VMs may share a name
}

// Checklist flattens the plan's per-VM checklists and flags: the one list
// every format (JSON, table, CSV, markdown) shows.
func Checklist(p *Plan) []ChecklistItem {
	var out []ChecklistItem
	for i, vm := range p.VMs {
		target := vm.TargetFlavor + " / " + vm.TargetImage + " / vTPM " + vm.TargetVTPM
		add := func(ph Phase, item string) {
			out = append(out, ChecklistItem{VM: vm.Name, Phase: ph, Item: item, Target: target, vm: i})
		}
		for _, f := range vm.Flags {
			add(PhaseFlag, f)
		}
		switch vm.BitLockerEscrow {
		case "unconfirmed":
			add(PhaseBefore, "BitLocker recovery keys NOT confirmed escrowed: confirm every volume's key is in AD DS / Entra ID / MBAM, then set bitlocker_escrow: confirmed for this VM in the plan")
		case "confirmed":
			add(PhaseBefore, "BitLocker recovery keys confirmed escrowed")
		}
		for _, c := range vm.Checklist {
			add(c.Phase, c.Item)
		}
		for _, c := range vm.FollowUp {
			add(PhaseFollowUp, c)
		}
	}
	return out
}

// ChecklistSchema names the JSON of `plan checklist`.
const ChecklistSchema = "vtpmctl.plan-checklist/1"

// CutoverChecklist is the result of `plan checklist`: its JSON is
// {"schema", "items"}, its table one row per item, and it is a markdown
// document (the default when no -f is given) of the same items.
type CutoverChecklist struct {
	Schema string          `json:"schema"`
	Items  []ChecklistItem `json:"items"`
	plan   *Plan
}

// NewChecklist is the plan's cutover checklist.
func NewChecklist(p *Plan) *CutoverChecklist {
	items := Checklist(p)
	if items == nil {
		items = []ChecklistItem{}
	}
	return &CutoverChecklist{Schema: ChecklistSchema, Items: items, plan: p}
}

// Table is one row per item.
func (c *CutoverChecklist) Table() output.Table {
	t := output.Table{Key: "items", Columns: []string{"vm", "phase", "item", "target"}, Wrap: []string{"item"}}
	for _, it := range c.Items {
		t.Rows = append(t.Rows, output.Record{{Name: "vm", Value: it.VM}, {Name: "phase", Value: string(it.Phase)}, {Name: "item", Value: it.Item}, {Name: "target", Value: it.Target}})
	}
	return t
}

// Markdown writes the checklist document from Items, every name escaped:
// per VM its target, its flags, then one section per phase.
func (c *CutoverChecklist) Markdown(w io.Writer) error {
	byVM := make([][]ChecklistItem, len(c.plan.VMs))
	for _, it := range c.Items {
		byVM[it.vm] = append(byVM[it.vm], it)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "# Cutover checklist")
	fmt.Fprintln(bw)
	md := quote.Markdown
	for i, vm := range c.plan.VMs {
		fmt.Fprintf(bw, "## %s\n\n", md(vm.Name))
		fmt.Fprintf(bw, "%s, %s firmware, Secure Boot %s, source vTPM **%s** → flavor %s, image %s, vTPM %s\n\n",
			md(vm.GuestOS), md(vm.Firmware), md(vm.SecureBoot), md(vm.SourceVTPM), md(vm.TargetFlavor), md(vm.TargetImage), md(vm.TargetVTPM))
		for _, it := range byVM[i] {
			if it.Phase == PhaseFlag {
				fmt.Fprintf(bw, "- **Flag:** %s\n", md(it.Item))
			}
		}
		for _, sec := range phaseTitles {
			title := false
			for _, it := range byVM[i] {
				if it.Phase != sec.phase {
					continue
				}
				if !title {
					fmt.Fprintf(bw, "\n%s:\n\n", sec.title)
					title = true
				}
				fmt.Fprintf(bw, "- [ ] %s\n", md(it.Item))
			}
		}
		fmt.Fprintln(bw)
	}
	return bw.Flush()
}
