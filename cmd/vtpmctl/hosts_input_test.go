package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// `hosts report FIFO` used to block in open(2) for ever, deaf to Ctrl-C
// and SIGTERM: now it is one usage line naming the file and exit 2, at
// once (a regression fails after 5 s instead of hanging the suite).
func TestHostsReportFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "cmp1.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	type res struct {
		out, err string
		code     int
	}
	done := make(chan res, 1)
	go func() {
		o, e, c := runCLI(t, "hosts", "report", fifo)
		done <- res{o, e, c}
	}()
	select {
	case r := <-done:
		want := "vtpmctl: " + fifo + ": a FIFO, not a regular file; not read\n"
		if r.code != 2 || r.err != want || r.out != "" {
			t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2, no stdout, stderr %q", r.code, r.out, r.err, want)
		}
		if strings.Count(r.err, "\n") != 1 {
			t.Fatalf("stderr is not one line: %q", r.err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("hosts report on a FIFO still running after 5 s")
	}
}
