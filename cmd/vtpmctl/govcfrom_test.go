package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/plans"
)

// TestGovcFromTwoVCenters: one govc export per vCenter, with the same VM
// names, MoRefs and UUIDs (a cloned vCenter): two VMs each, told apart by
// vCenter in their image names and vtpmctl:source.
func TestGovcFromTwoVCenters(t *testing.T) {
	file := filepath.Join("..", "..", "plans", "testdata", "govc-vm.info-20.json")
	out := filepath.Join(t.TempDir(), "plan.yaml")
	_, errs, code := runCLI(t, "plan", "import", "--govc-from", "https://vc01.example.com/sdk="+file, "--govc-from", "vc02.example.com="+file, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := plans.ReadPlan(f, out)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, vm := range p.VMs {
		seen[vm.Source()] = true
		if !strings.HasPrefix(vm.TargetImage, "vc01-") && !strings.HasPrefix(vm.TargetImage, "vc02-") {
			t.Errorf("%s: image %s", vm.Name, vm.TargetImage)
		}
	}
	if len(p.VMs) != 40 || len(seen) != 40 || !seen["vc01.example.com/vm-1000"] || !seen["vc02.example.com/vm-1000"] {
		t.Errorf("%d VMs, %d sources", len(p.VMs), len(seen))
	}
	if _, errs, code := runCLI(t, "plan", "import", "--govc-from", file); code != 2 || !strings.Contains(errs, "VCENTER=") {
		t.Errorf("bad --govc-from: exit %d %s", code, errs)
	}
}
