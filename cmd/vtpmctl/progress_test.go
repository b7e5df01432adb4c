package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/app/secrets"
	"github.com/vtpmctl/vtpmctl/internal/parallel"
)

// TestNoProgressInPipes: a writer that is not a terminal gets nothing.
func TestNoProgressInPipes(t *testing.T) {
	var b bytes.Buffer
	ctx := withProgress(context.Background(), &b, "working")
	parallel.Do(ctx, 10, 2, func(context.Context, int) error { return nil })
	if b.Len() != 0 {
		t.Errorf("progress written to a pipe: %q", b.String())
	}
}

// TestProgressLineOnlyOnTerminal: the audit's progress line is drawn on
// a character device (a terminal is one) and never on a pipe, a file
// or a buffer (a log, a test's capture).
func TestProgressLineOnlyOnTerminal(t *testing.T) {
	r, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer pw.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	dev, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	for _, tc := range []struct {
		name string
		w    io.Writer
		draw bool
	}{
		{"pipe", pw, false},
		{"file", file, false},
		{"buffer", &bytes.Buffer{}, false},
		{"character device", dev, true},
	} {
		if got := newProgressLine(tc.w) != nil; got != tc.draw {
			t.Errorf("%s: drawn %v, want %v", tc.name, got, tc.draw)
		}
	}
}

// TestProgressLineFrames: a new phase is drawn at once; within a phase
// a frame at most every redrawEvery (the reports between are dropped);
// clear erases the line once, and only a line that was drawn.
func TestProgressLineFrames(t *testing.T) {
	var b bytes.Buffer
	now := time.Unix(0, 0)
	l := &progressLine{w: &b, now: func() time.Time { return now }}
	l.clear()
	if b.Len() != 0 {
		t.Fatalf("clear before any frame wrote %q", b.String())
	}
	step := func(d time.Duration, p secrets.Progress) {
		now = now.Add(d)
		l.report(p)
	}
	step(0, secrets.Progress{Phase: secrets.PhaseSecrets, Total: 2000})                                // new phase
	step(99*time.Millisecond, secrets.Progress{Phase: secrets.PhaseSecrets, Done: 800, Total: 2000})   // dropped
	step(time.Millisecond, secrets.Progress{Phase: secrets.PhaseSecrets, Done: 1234, Total: 2000})     // 100 ms on
	step(150*time.Millisecond, secrets.Progress{Phase: secrets.PhaseSecrets, Done: 2000, Total: 2000}) // 150 ms on
	step(0, secrets.Progress{Phase: secrets.PhaseServers})                                             // new phase
	step(10*time.Millisecond, secrets.Progress{Phase: secrets.PhaseServers, Done: 1})                  // dropped
	step(0, secrets.Progress{Phase: secrets.PhaseUsers, Total: 20})                                    // new phase
	step(50*time.Millisecond, secrets.Progress{Phase: secrets.PhaseUsers, Done: 20, Total: 20})        // dropped
	l.clear()
	l.clear()
	const cl = "\r\033[K"
	want := cl + "vtpmctl: auditing secrets and ACLs: 0/2,000 projects" + cl + "vtpmctl: auditing secrets and ACLs: 1,234/2,000 projects" +
		cl + "vtpmctl: auditing secrets and ACLs: 2,000/2,000 projects" + cl + "vtpmctl: listing servers" + cl + "vtpmctl: looking up users 0/20" + cl
	if b.String() != want {
		t.Errorf("frames\n got %q\nwant %q", b.String(), want)
	}
}

// TestProgressLineConcurrent: reports from many goroutines at once
// (run with -race) draw whole frames, no more than the clock allows.
func TestProgressLineConcurrent(t *testing.T) {
	var b bytes.Buffer
	l := &progressLine{w: &b, now: time.Now}
	start := time.Now()
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				l.report(secrets.Progress{Phase: secrets.PhaseSecrets, Done: i, Total: 2000})
			}
		}()
	}
	wg.Wait()
	l.clear()
	frames := strings.Split(b.String(), "\r\033[K")
	if frames[0] != "" || frames[len(frames)-1] != "" {
		t.Fatalf("output does not start and end with a cleared line: %q", b.String())
	}
	frames = frames[1 : len(frames)-1]
	if most := int(time.Since(start)/redrawEvery) + 1; len(frames) > most {
		t.Errorf("%d frames in %s, want at most %d", len(frames), time.Since(start), most)
	}
	for _, f := range frames {
		if !strings.HasPrefix(f, "vtpmctl: auditing secrets and ACLs: ") || !strings.HasSuffix(f, "/2,000 projects") {
			t.Errorf("frame %q", f)
		}
	}
}

// TestProgressText: each phase in the units it counts, numbers grouped.
func TestProgressText(t *testing.T) {
	for _, tc := range []struct {
		p    secrets.Progress
		want string
	}{
		{secrets.Progress{Phase: secrets.PhaseServers}, "listing servers"},
		{secrets.Progress{Phase: secrets.PhaseServers, Done: 1}, "listing servers: 1 page"},
		{secrets.Progress{Phase: secrets.PhaseServers, Done: 3}, "listing servers: 3 pages"},
		{secrets.Progress{Phase: secrets.PhaseSecrets, Done: 3, Total: 20}, "auditing secrets and ACLs: 3/20 projects"},
		{secrets.Progress{Phase: secrets.PhaseUsers, Done: 1234567, Total: 12345678}, "looking up users 1,234,567/12,345,678"},
		{secrets.Progress{Phase: "later", Done: 5}, "later 5"},
	} {
		if got := progressText(tc.p); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.p, got, tc.want)
		}
	}
}
