// Command planbench measures `vtpmctl plan import` on a large RVTools
// export: it writes N rows cycled from the 40-VM fixture (each VM renamed
// and given its own UUIDs), runs the binary, and prints wall time and peak
// RSS. `make bench` runs it with 100,000 VMs; the goal is a flat memory
// under 200 MB.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/vtpmctl/vtpmctl/internal/rvtoolsgen"
)

func main() {
	n := flag.Int("vms", 100000, "rows to generate")
	bin := flag.String("vtpmctl", "bin/vtpmctl", "binary to measure")
	fixture := flag.String("fixture", "domain/migration/testdata/RVTools_tabvInfo-40.csv", "rows to cycle")
	maxRSS := flag.Int("max-rss-mb", 0, "fail when the peak RSS is above this (0: report only)")
	flag.Parse()
	if err := run(*n, *bin, *fixture, *maxRSS); err != nil {
		fmt.Fprintln(os.Stderr, "planbench:", err)
		os.Exit(1)
	}
}

func run(n int, bin, fixture string, maxRSS int) error {
	dir, err := os.MkdirTemp("", "planbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "vinfo.csv")
	out, err := os.Create(in)
	if err != nil {
		return err
	}
	err = rvtoolsgen.Write(out, fixture, n)
	out.Close()
	if err != nil {
		return err
	}
	st, _ := os.Stat(in)

	cmd := exec.Command(bin, "plan", "import", "--rvtools", in, "-o", filepath.Join(dir, "plan.yaml"))
	cmd.Stderr = nil
	start := time.Now()
	runErr := cmd.Run()
	took := time.Since(start)
	rss := 0
	if cmd.ProcessState != nil {
		rss = int(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss / 1024)
	}
	ps, _ := os.Stat(filepath.Join(dir, "plan.yaml"))
	size := int64(0)
	if ps != nil {
		size = ps.Size()
	}
	fmt.Printf("plan import: %d VMs, export %d MB -> plan %d MB in %s, peak RSS %d MB (exit: %v)\n",
		n, st.Size()>>20, size>>20, took.Round(time.Millisecond), rss, runErr)
	if runErr != nil {
		return runErr
	}
	if maxRSS > 0 && rss > maxRSS {
		return fmt.Errorf("peak RSS %d MB is above %d MB", rss, maxRSS)
	}
	return nil
}
