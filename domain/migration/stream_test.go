package plans

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
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
