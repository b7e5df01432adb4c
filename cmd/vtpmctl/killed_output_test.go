package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/internal/rvtoolsgen"
)

// TestOutputFileSurvivesSIGKILL: plan import -o replaces its file whole
// or not at all. The CLI (this test binary, named vtpmctl) imports a
// 5,000-row RVTools export over an existing plan file and is killed
// with SIGKILL at points spread over its run; after each, the file is the
// old plan or the new one, byte for byte (but the import time), never a part of either.
func TestOutputFileSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the CLI a dozen times")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "vtpmctl")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(self); err != nil || os.WriteFile(bin, b, 0o700) != nil {
		t.Fatalf("copying the CLI: %v", err)
	}
	in := filepath.Join(dir, "vinfo.csv")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	err = rvtoolsgen.Write(f, "../../examples/inventory/RVTools_tabvInfo.csv", 5000)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "plan.yaml")
	old := []byte("# the plan before this import\nversion: 1\n")
	args := []string{"plan", "import", "--rvtools", in, "-o", out}

	os.WriteFile(out, old, 0o644)
	t0 := time.Now()
	if b, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("import: %v\n%s", err, b)
	}
	whole := time.Since(t0)
	fresh, err := os.ReadFile(out)
	if err != nil || bytes.Equal(fresh, old) || len(fresh) < 5000 {
		t.Fatalf("the uninterrupted import wrote %d bytes: %v", len(fresh), err)
	}
	counts := map[string]int{}
	const points = 12
	for i := 0; i < points; i++ {
		os.WriteFile(out, old, 0o644)
		cmd := exec.Command(bin, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// from the start to past the end, most points late in the run,
		// where the file is written
		time.Sleep(whole * time.Duration(points/3+i) / points)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		got, err := os.ReadFile(out)
		switch {
		case err != nil:
			t.Errorf("killed at %d/%d of the run: %v", i, points, err)
		case bytes.Equal(got, old):
			counts["old"]++
		case bytes.Equal(stamped.ReplaceAll(got, nil), stamped.ReplaceAll(fresh, nil)):
			counts["new"]++
		default:
			t.Errorf("killed at %d/%d of the run: the file is %d bytes, neither the old plan (%d) nor the new (%d)", i, points, len(got), len(old), len(fresh))
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".plan.yaml*"))
	t.Logf("SIGKILL at %d points over %s: old %d, new %d, torn 0; temporary files left by the killed runs: %d", points, whole.Round(time.Millisecond), counts["old"], counts["new"], len(left))
}

// stamped is the plan's import time, the one line two imports differ in.
var stamped = regexp.MustCompile(`(?m)^  imported: .*$`)
