package fleet

import (
	"slices"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
)

// The fleet's findings are host check findings (one check shape, one
// status type), so each host's view reads like its host check report.
type (
	Check  = hostcheck.Check
	Status = hostcheck.Status
)

const (
	Pass = hostcheck.Pass
	Warn = hostcheck.Warn
	Fail = hostcheck.Fail
)

func contains(l []string, v string) bool { return slices.Contains(l, v) }

// StandingChecks are the fleet checks that state a standing risk of every
// vTPM host rather than a fault to fix (Nova evacuates no vTPM guest): a
// report lists them after the faults of their status.
var StandingChecks = []string{"EVACUATION-RISK"}
