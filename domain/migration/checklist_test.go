package migration

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/quote"
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
	var doc struct {
		Schema string          `json:"schema"`
		Items  []ChecklistItem `json:"items"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || doc.Schema != ChecklistSchema {
		t.Fatalf("%v: schema %q", err, doc.Schema)
	}
	var fromJSON, fromMD []string
	for _, it := range doc.Items {
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
	if len(doc.Items) < 10 {
		t.Errorf("only %d doc.Items: the plan should exercise every phase", len(doc.Items))
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

// TestChecklistLinePhases: a `checklist:` line carries its phase from the
// plan file to every format. A mapping says it; a plain line (every plan
// file written before phases were stored) has the phase its lead words
// gave it then; a line with an unknown phase or key is refused, naming
// its line.
func TestChecklistLinePhases(t *testing.T) {
	for _, tc := range []struct {
		name, lines string
		want        []PlanCheck
		err         string
	}{
		{"plain lines", `["BitLocker: back up the key", "after first boot: Get-Tpm", "on the target the guest cannot: shelve", "snapshots and backups carry no TPM state"]`,
			[]PlanCheck{{PhaseBefore, "BitLocker: back up the key"}, {PhaseAfter, "after first boot: Get-Tpm"}, {PhaseLimits, "on the target the guest cannot: shelve"}, {PhaseLimits, "snapshots and backups carry no TPM state"}}, ""},
		{"explicit after", `[{phase: after, item: "reboot twice, then Get-Tpm"}]`, []PlanCheck{{PhaseAfter, "reboot twice, then Get-Tpm"}}, ""},
		{"explicit limits", `[{item: "no GPU passthrough", phase: limits}]`, []PlanCheck{{PhaseLimits, "no GPU passthrough"}}, ""},
		// The phase, not the words: lead words of another phase are text.
		{"explicit before", `[{phase: before, item: "after first boot the app starts by hand: tell its owner"}]`, []PlanCheck{{PhaseBefore, "after first boot the app starts by hand: tell its owner"}}, ""},
		{"unknown phase", "\n      - {phase: later, item: x}", nil, `line 17: checklist phase "later" (choose before, after or limits)`},
		{"flag phase", "\n      - {phase: flag, item: x}", nil, `line 17: checklist phase "flag" (choose before, after or limits)`},
		{"no phase", "\n      - {item: x}", nil, `line 17: checklist phase "" (choose before, after or limits)`},
		{"unknown key", "\n      - {phase: after, text: x}", nil, `line 17: checklist line: field text not found (phase, item)`},
		{"twice", "\n      - {phase: after, item: x, phase: before}", nil, `line 17: checklist line: phase given twice`},
		{"alias", `[&tpm "after first boot: Get-Tpm", {phase: before, item: "x"}, *tpm]`, []PlanCheck{{PhaseAfter, "after first boot: Get-Tpm"}, {PhaseBefore, "x"}, {PhaseAfter, "after first boot: Get-Tpm"}}, ""},
		{"a list", "\n      - [a, b]", nil, `line 17: a checklist line is text or {phase: PHASE, item: TEXT}`},
	} {
		doc := strings.Replace(v1Plan, "    checklist: []\n", "    checklist: "+tc.lines+"\n", 1)
		p, err := ReadPlan(strings.NewReader(doc), "p.yaml")
		if tc.err != "" {
			if err == nil || err.Error() != "p.yaml: "+tc.err {
				t.Errorf("%s: %v, want p.yaml: %s", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got []PlanCheck
		for _, it := range Checklist(p) {
			got = append(got, PlanCheck{it.Phase, it.Item})
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestChecklistLinesWritten: a line whose lead words give its phase is
// written plain, as every plan before stored phases was (plan import's
// output does not change); any other says its phase; both read back.
func TestChecklistLinesWritten(t *testing.T) {
	p, err := ReadPlan(strings.NewReader(v1Plan), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p.VMs[0].Checklist = []PlanCheck{{PhaseBefore, "BitLocker: back up the key"}, {PhaseAfter, "after first boot: Get-Tpm"}, {PhaseLimits, "on the target: no shelve"},
		{PhaseAfter, "reboot twice"}, {PhaseBefore, "after first boot the app starts by hand"}}
	var b bytes.Buffer
	if err := WritePlan(&b, p); err != nil {
		t.Fatal(err)
	}
	want := `    checklist:
      - 'BitLocker: back up the key'
      - 'after first boot: Get-Tpm'
      - 'on the target: no shelve'
      - phase: after
        item: reboot twice
      - phase: before
        item: after first boot the app starts by hand
`
	if !strings.Contains(b.String(), want) {
		t.Errorf("written:\n%s\nwant:\n%s", b.String(), want)
	}
	back, err := ReadPlan(&b, "p.yaml")
	if err != nil || !reflect.DeepEqual(back.VMs[0].Checklist, p.VMs[0].Checklist) {
		t.Errorf("read back %v (%v), want %v", back.VMs[0].Checklist, err, p.VMs[0].Checklist)
	}
}

// v1Plan is a plan file of one VM whose checklist line the tests above
// replace (the line numbers of their errors count from here).
const v1Plan = `version: 1
images: []
flavors: []
vms:
  - name: w22
    guest_os: Windows Server 2022
    firmware: efi
    secure_boot: "yes"
    source_vtpm: "yes"
    vcpus: 2
    ram: 4096
    disk: 40
    target_flavor: w1.medium
    target_image: w22
    target_vtpm: 2.0 tpm-crb
    checklist: []
`
