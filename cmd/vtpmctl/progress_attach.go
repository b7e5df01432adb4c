package main

import (
	"io"

	"github.com/vtpmctl/vtpmctl/app/secrets"
)

// auditProgress is the progress line of secrets audit for a service that
// runs secrets.AuditSecrets inside it (report.Build, plans.VerifyCutover)
// and takes its Progress func in its own request: report goes into the
// request, done erases the line before anything else is written to w.
// Unless w is a terminal, report is nil (the service reports nothing)
// and done does nothing.
func auditProgress(w io.Writer) (report func(secrets.Progress), done func()) {
	line := newProgressLine(w)
	if line == nil {
		return nil, func() {}
	}
	return line.report, line.clear
}
