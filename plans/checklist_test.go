package plans

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/quote"
	"github.com/vtpmctl/vtpmctl/nova"
)

// checklistPlan imports VMs whose checklists have every phase: a Windows
// guest with a source vTPM (escrow unconfirmed, after and limits lines), a
// Windows 11 on BIOS (a flag and mbr2gpt follow-up steps), and two VMs of
// one name from two vCenters.
func checklistPlan(t *testing.T) *Plan {
	t.Helper()
	yes, no := true, false
	p, _ := Import([]SourceVM{
		{Name: "w22", VCPUs: 2, MemoryMiB: 4096, GuestID: "windows2019srvNext_64Guest", OSConfig: "Microsoft Windows Server 2022 (64-bit)", Firmware: "efi", SecureBoot: &yes, VTPM: "yes"},
		{Name: "w11-bios", VCPUs: 2, MemoryMiB: 4096, GuestID: "windows11_64Guest", Firmware: "bios", SecureBoot: &no, VTPM: "unknown"},
		{Name: "twin", VCenter: "vc1", VCPUs: 1, MemoryMiB: 1024, GuestID: "rhel9_64Guest", Firmware: "efi", VTPM: "yes"},
		{Name: "twin", VCenter: "vc2", VCPUs: 1, MemoryMiB: 1024, GuestID: "rhel9_64Guest", Firmware: "efi", VTPM: "no"},
	}, ImportOptions{TPMModel: "tpm-crb", Release: nova.Gazpacho})
	if len(p.VMs) != 4 {
		t.Fatalf("%d VMs", len(p.VMs))
	}
	return p
}

func markdown(t *testing.T, p *Plan) string {
	t.Helper()
	var b bytes.Buffer
	if err := NewChecklist(p).Markdown(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestChecklistMarkdownHasEscrowAndFollowUp: the default format of `plan
// checklist` once dropped both, which -f json showed.
func TestChecklistMarkdownHasEscrowAndFollowUp(t *testing.T) {
	md := markdown(t, checklistPlan(t))
	for _, want := range []string{
		"- [ ] BitLocker recovery keys NOT confirmed escrowed",
		"Follow-up after cutover:",
		"mbr2gpt /convert /allowFullOS",
		"- **Flag:**",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

// TestChecklistMarkdownMatchesJSON: the markdown lists exactly the items
// the JSON holds, each under its VM's heading.
func TestChecklistMarkdownMatchesJSON(t *testing.T) {
	p := checklistPlan(t)
	b, err := json.Marshal(NewChecklist(p))
	if err != nil {
		t.Fatal(err)
	}
	var items []ChecklistItem
	if err := json.Unmarshal(b, &items); err != nil {
		t.Fatal(err)
	}
	var fromJSON, fromMD []string
	for _, it := range items {
		fromJSON = append(fromJSON, it.VM+"|"+quote.Markdown(it.Item))
	}
	vm := ""
	for _, line := range strings.Split(markdown(t, p), "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			vm = strings.TrimPrefix(line, "## ")
		case strings.HasPrefix(line, "- [ ] "):
			fromMD = append(fromMD, vm+"|"+strings.TrimPrefix(line, "- [ ] "))
		case strings.HasPrefix(line, "- **Flag:** "):
			fromMD = append(fromMD, vm+"|"+strings.TrimPrefix(line, "- **Flag:** "))
		}
	}
	sort.Strings(fromJSON)
	sort.Strings(fromMD)
	if strings.Join(fromJSON, "\n") != strings.Join(fromMD, "\n") {
		t.Errorf("markdown and JSON differ:\njson:\n%s\nmarkdown:\n%s", strings.Join(fromJSON, "\n"), strings.Join(fromMD, "\n"))
	}
	if len(items) < 10 {
		t.Errorf("only %d items: the plan should exercise every phase", len(items))
	}
}

// TestChecklistPhases: every item carries its phase from where it is made.
func TestChecklistPhases(t *testing.T) {
	got := map[Phase]bool{}
	for _, it := range Checklist(checklistPlan(t)) {
		got[it.Phase] = true
		if strings.Contains(it.Item, "escrowed") && it.Phase != PhaseBefore {
			t.Errorf("%q in %s", it.Item, it.Phase)
		}
		if strings.Contains(it.Item, "mbr2gpt") && it.Phase != PhaseFollowUp {
			t.Errorf("%q in %s", it.Item, it.Phase)
		}
	}
	for _, ph := range []Phase{PhaseFlag, PhaseBefore, PhaseAfter, PhaseLimits, PhaseFollowUp} {
		if !got[ph] {
			t.Errorf("no %s item", ph)
		}
	}
}
