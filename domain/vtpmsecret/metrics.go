package vtpmsecret

import (
	"time"

	"github.com/vtpmctl/vtpmctl/internal/metrics"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// Now is the clock of the run's timestamp (tests fix it).
var Now = time.Now

// Gauges is secrets audit's Prometheus metrics: guests by outcome, each failing
// guest by check (server and project IDs only: names are other people's
// data), orphans and projects not auditable.
func (r *Result) Gauges() *metrics.Set {
	s := metrics.New()
	skipped := r.Summary.Guests - r.Summary.OK - r.Summary.Failed
	for outcome, n := range map[string]int{"ok": r.Summary.OK, "failed": r.Summary.Failed, "not_audited": skipped} {
		s.Add("vtpmctl_secrets_guests", "vTPM guests by secrets audit outcome", float64(n), "result", outcome)
	}
	for g := range r.EachGuest {
		for _, f := range g.Findings {
			if f.Status == result.Fail {
				s.Add("vtpmctl_secrets_guest_failed", "1 for each failing check of a vTPM guest's secret", 1, "server_id", g.ServerID, "project_id", g.ProjectID, "check", string(f.Check))
			}
		}
	}
	s.Add("vtpmctl_secrets_vtpm_secrets", "vTPM secrets listed in the audited projects", float64(r.Summary.Secrets))
	s.Add("vtpmctl_secrets_orphans", "vTPM secrets whose instance is gone, and duplicates", float64(r.Summary.Orphans))
	if c := r.Summary.Consumers; c != nil { // only where Barbican has consumers
		for state, n := range map[Protection]int{Protected: c.Protected, Unprotected: c.Unprotected, Mismatched: c.Mismatched} {
			s.Add("vtpmctl_secrets_guests_by_protection", "vTPM guests by the consumers on their secret (protected: nova/instance/<server>)", float64(n), "protection", string(state))
		}
	}
	s.Add("vtpmctl_secrets_projects_not_auditable", "projects whose secrets could not be listed", float64(r.Summary.NotAuditable))
	s.Add("vtpmctl_last_run_timestamp_seconds", "when vtpmctl last ran this audit (the textfile's freshness)", float64(Now().Unix()), "command", "secrets audit")
	return s
}
