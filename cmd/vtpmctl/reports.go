package main

import (
	"errors"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
)

// readReports reads host check report files: any fault in them is the
// user's input (a FIFO, not JSON, two reports of one host), so usage.
func readReports(paths []string) ([]hostcheck.Report, error) {
	reps, err := hostcheck.ReadReports(paths)
	if err != nil {
		return nil, usagef("%w", err)
	}
	return reps, nil
}

// readHostReports reads --host-reports DIR (none: no reports), before
// any cloud is asked.
func readHostReports(dir string) ([]hostcheck.Report, error) {
	if dir == "" {
		return nil, nil
	}
	reps, err := hostcheck.ReadReportDir(dir)
	if errors.Is(err, hostcheck.ErrNoReports) {
		return nil, usagef("--host-reports %s: %w", dir, err)
	}
	if err != nil {
		return nil, usagef("%w", err)
	}
	return reps, nil
}
