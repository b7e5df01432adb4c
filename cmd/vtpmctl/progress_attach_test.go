package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/vtpmctl/vtpmctl/app/secrets"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud/scale"
	"github.com/vtpmctl/vtpmctl/internal/output"
)

// TestAuditProgressOnlyOnTerminal: the callback report and plan verify
// hand their service exists on a terminal only; elsewhere the service
// gets none and done writes nothing.
func TestAuditProgressOnlyOnTerminal(t *testing.T) {
	dev, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	var buf bytes.Buffer
	for _, tc := range []struct {
		name string
		w    io.Writer
		draw bool
	}{
		{"buffer", &buf, false},
		{"character device", dev, true},
	} {
		report, done := auditProgress(context.Background(), tc.w)
		if got := report != nil; got != tc.draw {
			t.Errorf("%s: callback %v, want %v", tc.name, got, tc.draw)
		}
		if report != nil {
			report(secrets.Progress{Phase: secrets.PhaseSecrets, Done: 1, Total: 2})
		}
		done()
	}
	if buf.Len() != 0 {
		t.Errorf("written to a buffer: %q", buf.String())
	}
	// With a run, the audit's progress is its step (an interruption's
	// line says it), and still nothing is drawn in a pipe.
	run := &runState{}
	report, done := auditProgress(withRun(context.Background(), run), &buf)
	report(secrets.Progress{Phase: secrets.PhaseSecrets, Done: 3, Total: 20})
	done()
	if _, step := run.now(); step != "auditing secrets and ACLs: 3/20 projects" || buf.Len() != 0 {
		t.Errorf("step %q, written %q", step, buf.String())
	}
}

// TestAuditProgressNotInPipes: report and plan verify against the
// synthetic cloud, stderr a pipe (a log, a CI job): not one byte of
// progress on it. Before, report drew "auditing projects n/N" and plan
// verify "verifying n/N" only on a terminal too; this keeps it so.
func TestAuditProgressNotInPipes(t *testing.T) {
	_, sess := scale.Session(t, scale.Config{Guests: 10, Projects: 2, Hypervisors: 2})
	plan := filepath.Join(t.TempDir(), "plan.yaml")
	writeFaultPlan(t, plan)
	for _, tc := range []struct {
		name string
		run  func(streams *IOStreams, g *globalOptions) error
	}{
		{"report", func(streams *IOStreams, g *globalOptions) error {
			in, err := reportInputs(context.Background(), &reportOptions{IO: streams, Global: g}, nil)
			if err == nil && in.Secrets == nil {
				t.Error("no secrets audit")
			}
			return err
		}},
		{"plan verify", func(streams *IOStreams, g *globalOptions) error {
			// A plan not fully met fails the run (exit 1) after its
			// result is written: stderr is asserted here, not the verdict.
			var rep *reportedError
			if err := runPlanVerify(context.Background(), &planVerifyOptions{IO: streams, Global: g, File: plan}); err != nil && (!errors.As(err, &rep) || rep.code != exitFailed) {
				return err
			}
			if streams.Out.(*bytes.Buffer).Len() == 0 {
				t.Error("no result written")
			}
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			read := make(chan []byte)
			go func() { b, _ := io.ReadAll(r); read <- b }()
			var out bytes.Buffer
			g := &globalOptions{Output: output.Options{Format: "json"}, session: sess}
			runErr := tc.run(&IOStreams{Out: &out, Err: w}, g)
			w.Close()
			if runErr != nil {
				t.Fatal(runErr)
			}

			if b := <-read; len(b) != 0 {
				t.Errorf("written to stderr, a pipe: %q", b)
			}
		})
	}
}
