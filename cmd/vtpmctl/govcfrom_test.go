package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

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

// TestPlanInputFilesRefuseFIFO: every file plan commands read goes
// through infile: a FIFO (which would block its open for ever) or
// /dev/zero (which never ends) is one line naming it, exit 2, at once.
func TestPlanInputFilesRefuseFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "plan.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	govc := filepath.Join("..", "..", "plans", "testdata", "govc-vm.info-20.json")
	cases := [][]string{
		{"plan", "checklist", fifo},
		{"plan", "diff", fifo},
		{"plan", "apply", fifo, "--yes"},
		{"plan", "verify", fifo},
		{"plan", "import", "--rvtools", fifo},
		{"plan", "import", "--govc", fifo},
		{"plan", "import", "--govc", "vm1=" + fifo},
		{"plan", "import", "--govc-from", "vc01=" + fifo},
		{"plan", "import", "--govc", govc, "--flavors", fifo},
		{"plan", "checklist", "/dev/zero"},
	}
	for _, args := range cases {
		type res struct {
			errs string
			code int
		}
		done := make(chan res, 1)
		go func() {
			_, errs, code := runCLI(t, args...)
			done <- res{errs, code}
		}()
		select {
		case r := <-done:
			name := fifo
			if args[len(args)-1] == "/dev/zero" {
				name = "/dev/zero"
			}
			if r.code != 2 || !strings.Contains(r.errs, name) || strings.Count(strings.TrimSpace(r.errs), "\n") != 0 {
				t.Errorf("%v: exit %d %q", args, r.code, r.errs)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%v: still waiting on the FIFO after 10s", args)
		}
	}
}
