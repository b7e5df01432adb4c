package migration

import (
	"bytes"
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/vtpmctl/vtpmctl/domain/advice"
)

// TestWriteImportReadsBack: the streamed plan is the in-memory plan, and
// the document is what yaml's own encoder writes, byte for byte.
func TestWriteImportReadsBack(t *testing.T) {
	vms, _, _ := parseFile(t, "testdata/RVTools_tabvInfo-40.csv", RVToolsOptions{})
	vms = append(vms, SourceVM{Name: "evil'\n- name: injected\n\x1b[2J", VCPUs: 1, MemoryMiB: 512, Firmware: "efi", VTPM: "yes",
		GuestID: "windows11_64Guest"})
	o := ImportOptions{Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	want, wantSum := Import(vms, o)
	want.Source.RVTools = "x.csv"
	var b bytes.Buffer
	sum, err := WriteImport(context.Background(), &b, vms, o, PlanSource{RVTools: "x.csv"})
	if err != nil {
		t.Fatal(err)
	}
	if sum != wantSum {
		t.Errorf("summary %+v, want %+v", sum, wantSum)
	}
	got, err := ReadPlan(bytes.NewReader(b.Bytes()), "plan.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("streamed plan differs from the in-memory plan")
	}
	var ref bytes.Buffer
	enc := yaml.NewEncoder(&ref)
	enc.SetIndent(2)
	enc.Encode(want)
	if body := b.String()[strings.Index(b.String(), "version:"):]; body != ref.String() {
		t.Errorf("streamed document differs from yaml's encoding:\n%s\n---\n%s", body[:min(len(body), 400)], ref.String()[:min(ref.Len(), 400)])
	}
	if len(got.VMs) != len(vms) || got.VMs[len(vms)-1].Name != vms[len(vms)-1].Name {
		t.Errorf("hostile name not kept exactly")
	}
}

func TestWriteImportInterrupted(t *testing.T) {
	vms := make([]SourceVM, 3000)
	for i := range vms {
		vms[i] = SourceVM{Name: "vm", VCPUs: 1, MemoryMiB: 512}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := WriteImport(ctx, &bytes.Buffer{}, vms, ImportOptions{}, PlanSource{}); err == nil {
		t.Error("a cancelled import went on")
	}
}

// TestWriteImportHeaderAndWords: the header is the caller's, each line a
// comment (one with a newline stays comments); the reason for an unknown
// vTPM names the caller's option for the vTPM column, or none.
func TestWriteImportHeaderAndWords(t *testing.T) {
	vms := []SourceVM{{Name: "vm1", VCPUs: 1, MemoryMiB: 512, VTPM: "unknown"}}
	for _, tc := range []struct {
		words  advice.Words
		reason string
	}{
		{flagWords{OptionVTPMColumn: "--vtpm-column"}, "vTPM unknown (RVTools has no vTPM column; give govc JSON or --vtpm-column): none added"},
		{nil, "vTPM unknown (RVTools has no vTPM column; give govc JSON or a vTPM column): none added"},
	} {
		var b bytes.Buffer
		o := ImportOptions{Words: tc.words, Header: []string{"written by a test.", "two\nlines"}}
		if _, err := WriteImport(context.Background(), &b, vms, o, PlanSource{}); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(b.String(), "# written by a test.\n# two\n# lines\nversion: 1\n") {
			t.Errorf("header:\n%.200s", b.String())
		}
		p, err := ReadPlan(bytes.NewReader(b.Bytes()), "plan.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(p.VMs[0].Reasons, tc.reason) {
			t.Errorf("reasons %q, want %q", p.VMs[0].Reasons, tc.reason)
		}
		if mem, _ := Import(vms, o); !reflect.DeepEqual(mem.VMs[0].Reasons, p.VMs[0].Reasons) {
			t.Errorf("in memory %q, written %q", mem.VMs[0].Reasons, p.VMs[0].Reasons)
		}
	}
	var b bytes.Buffer
	if err := WritePlan(&b, &Plan{Version: 1}); err != nil || strings.HasPrefix(b.String(), "#") {
		t.Errorf("no header given, one written: %v\n%s", err, b.String())
	}
}
