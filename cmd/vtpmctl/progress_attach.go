package main

import (
	"context"
	"io"

	"github.com/vtpmctl/vtpmctl/app/secrets"
)

// auditProgress is the progress line of secrets audit for a service that
// runs secrets.AuditSecrets inside it (report.Build, plans.VerifyCutover)
// and takes its Progress func in its own request: report goes into the
// request, done erases the line before anything else is written to w.
// report also tells ctx's run how far the audit is (runState, for an
// interruption's line). Unless w is a terminal or ctx has a run, report
// is nil (the service reports nothing); unless w is a terminal, done
// does nothing.
func auditProgress(ctx context.Context, w io.Writer) (report func(secrets.Progress), done func()) {
	line, run := newProgressLine(w), runOf(ctx)
	switch {
	case line == nil && run == nil:
		return nil, func() {}
	case line == nil:
		return func(p secrets.Progress) { run.note(progressText(p)) }, func() {}
	}
	return func(p secrets.Progress) {
		run.note(progressText(p))
		line.report(p)
	}, line.clear
}
