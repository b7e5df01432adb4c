package main

import (
	"context"
	"os"
	"runtime/debug"
	"runtime/pprof"
)

// memoryLimit is a soft heap limit: an audit of 50,000 guests holds
// ~130 MB of live data, and without a limit the collector lets the heap
// double past it before running (peak RSS ~280 MB). A soft limit only
// makes the collector run sooner; GOMEMLIMIT, when set, wins.
const memoryLimit = 200 << 20

func main() { os.Exit(process()) }

// process is the whole program, main's and the test binary's when it
// runs as vtpmctl (TestMain): SIGINT and SIGTERM stop the run, which then
// publishes nothing and exits 130 or 143; a second signal exits at once
// (interrupt.go).
func process() int {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	if path := os.Getenv("VTPMCTL_CPUPROFILE"); path != "" {
		// a developer's window on where a run's CPU goes (make bench's
		// scale cloud, run by hand): not a flag, so no user meets it
		if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
			defer f.Close()
			defer pprof.StopCPUProfile()
		}
	}
	ctx, stop := notifySignals(withRun(context.Background(), &runState{}), os.Stderr, os.Exit)
	defer stop()
	return Main(ctx, os.Args, &IOStreams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
}
