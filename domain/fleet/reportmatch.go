package fleet

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
)

// reportMatch is which host check report stands for each hypervisor, and
// what the reports that name a hypervisor without standing for it say
// there. A report is a file someone handed us: one that names another
// host (a copy, an edit, a stale name) must never take that host's place
// and hide what that host's own report found.
type reportMatch struct {
	own      []int     // by host: the index of the report that stands for it, -1 none
	findings [][]Check // by host: HOST-REPORT findings, added after the audit
	index    map[string]hostcheck.Report
}

// hostReportRemedy: every conflict is fixed the same way.
const hostReportRemedy = "keep one report per host, each the JSON report of host check run on that host"

// matchReports decides which report stands for which hypervisor
// (ownReports), files them so that every lookup by a host's names finds
// its own report and nothing else (reportKeys), and words each conflict.
func matchReports(hosts []Host, reps []hostcheck.Report) reportMatch {
	named := namedHosts(hosts, reps)
	m := reportMatch{own: ownReports(hosts, reps, named), findings: make([][]Check, len(hosts))}
	m.index = m.reportKeys(hosts, reps)
	for j := range reps {
		m.word(hosts, reps[j], j, named[j])
	}
	return m
}

// reportNames are the names a report gives its host: Nova's service host
// and libvirt's host name, which is the hypervisor hostname Nova reports.
// A libvirt name two reports share (two nova-computes on one machine, the
// fake driver's beside libvirt's) names neither.
func reportNames(reps []hostcheck.Report) [][]string {
	nodes := map[string]int{}
	for _, r := range reps {
		nodes[r.Facts.HypervisorHostname]++
	}
	out := make([][]string, len(reps))
	for j, r := range reps {
		out[j] = []string{r.Host}
		if hn := r.Facts.HypervisorHostname; hn != "" && hn != r.Host && nodes[hn] == 1 {
			out[j] = append(out[j], hn)
		}
	}
	return out
}

// hostsByName files hosts by both their names. A report's host name may
// be the FQDN Nova has as hypervisor hostname, or the other way round, so
// either of a report's names may meet either of a host's.
func hostsByName(hosts []Host) map[string][]int {
	out := map[string][]int{}
	for i, h := range hosts {
		for _, n := range []string{h.Host, h.Hypervisor} {
			if n != "" && !slices.Contains(out[n], i) {
				out[n] = append(out[n], i)
			}
		}
	}
	return out
}

// namedHosts is, for each report, the hosts its names name (in host
// order, once each).
func namedHosts(hosts []Host, reps []hostcheck.Report) [][]int {
	byName := hostsByName(hosts)
	names := reportNames(reps)
	out := make([][]int, len(reps))
	for j := range reps {
		for _, n := range names[j] {
			for _, i := range byName[n] {
				if !slices.Contains(out[j], i) {
					out[j] = append(out[j], i)
				}
			}
		}
		slices.Sort(out[j])
	}
	return out
}

// ownReports: a host's report is the one report of its service host, the
// name Nova itself knows the compute by. Failing that, it is the one
// report that names this host and no other and whose service host is no
// hypervisor's (the machine's FQDN where Nova has the short name, a host
// renamed since). Two claimants, or none, leave the host without one.
func ownReports(hosts []Host, reps []hostcheck.Report, named [][]int) []int {
	service := map[string]bool{}
	for _, h := range hosts {
		service[h.Host] = true
	}
	byService := map[string][]int{}
	weak := make([][]int, len(hosts))
	for j, r := range reps {
		byService[r.Host] = append(byService[r.Host], j)
		if !service[r.Host] && len(named[j]) == 1 {
			weak[named[j][0]] = append(weak[named[j][0]], j)
		}
	}
	own := make([]int, len(hosts))
	for i, h := range hosts {
		own[i] = -1
		switch strong := byService[h.Host]; {
		case h.Host != "" && len(strong) == 1:
			own[i] = strong[0]
		case len(strong) == 0 && len(weak[i]) == 1:
			own[i] = weak[i][0]
		}
	}
	return own
}

// reportKeys is the index AuditHosts, the drain and the host evidence
// look reports up in, by a host's hypervisor hostname or service host: a
// host's names lead to its own report, or nowhere. A name two hosts share
// that would lead to different reports leads nowhere; a host its own
// report cannot then be found for has none (its report is worded as a
// conflict instead). A report's names that are no host's stay, for
// servers on a compute the hypervisor list lacks.
func (m *reportMatch) reportKeys(hosts []Host, reps []hostcheck.Report) map[string]hostcheck.Report {
	key := map[string]int{} // name → report, -1: leads nowhere
	set := func(name string, j int) {
		if prev, ok := key[name]; ok && prev != j {
			j = -1
		}
		key[name] = j
	}
	for i, h := range hosts {
		for _, n := range []string{h.Hypervisor, h.Host} {
			if n != "" {
				set(n, m.own[i])
			}
		}
	}
	leadsTo := func(name string, j int) bool {
		k, ok := key[name]
		return ok && name != "" && k == j
	}
	for i, h := range hosts {
		if j := m.own[i]; j >= 0 && !leadsTo(h.Hypervisor, j) && !leadsTo(h.Host, j) {
			m.own[i] = -1
		}
	}
	hostNames := hostsByName(hosts)
	for j, names := range reportNames(reps) {
		for _, n := range names {
			if hostNames[n] == nil {
				set(n, j)
			}
		}
	}
	out := make(map[string]hostcheck.Report, len(key))
	for n, j := range key {
		if j >= 0 {
			out[n] = reps[j]
		}
	}
	return out
}

// word adds, for report j, a finding to each host it names without
// standing for it and, where it stands for a host but names others too,
// one to that host.
func (m *reportMatch) word(hosts []Host, r hostcheck.Report, j int, named []int) {
	var mine, others []int
	for _, i := range named {
		if m.own[i] == j {
			mine = append(mine, i)
		} else {
			others = append(others, i)
		}
	}
	for _, i := range others {
		m.findings[i] = append(m.findings[i], claimCheck(r, hostNames(hosts, mine)))
	}
	if len(others) == 0 {
		return
	}
	for _, i := range mine {
		m.findings[i] = append(m.findings[i], Check{ID: "HOST-REPORT", Status: Warn,
			Message: fmt.Sprintf("this host's check report (host %s%s) also names %s: taken as this host's by its service host, not as theirs", r.Host, nodePart(r), strings.Join(hostNames(hosts, others), ", ")),
			Remedy:  hostReportRemedy})
	}
}

// claimCheck: r names this host but is not its report. Where r is another
// host's, what it found shows there. Where it stands for no host (two
// reports claim one, or it names several), this is the only place its
// failing checks can show, so they fail here: no failure is lost to a
// report naming the wrong host.
func claimCheck(r hostcheck.Report, standsFor []string) Check {
	msg := fmt.Sprintf("the host check report (host %s%s) names this host but is not taken as its report: ", r.Host, nodePart(r))
	if len(standsFor) > 0 {
		return Check{ID: "HOST-REPORT", Status: Warn, Message: msg + "it is the report of " + strings.Join(standsFor, ", "), Remedy: hostReportRemedy}
	}
	msg += "it stands for no host (another report claims the same host, or it names more than one)"
	failing := failingChecks(r)
	if len(failing) == 0 {
		return Check{ID: "HOST-REPORT", Status: Warn, Message: msg, Remedy: hostReportRemedy}
	}
	return Check{ID: "HOST-REPORT", Status: Fail, Message: msg + "; its failing checks count here: " + strings.Join(failing, ", "), Remedy: hostReportRemedy}
}

// failingChecks names a report's failing checks (its summary's count,
// where the checks do not say which).
func failingChecks(r hostcheck.Report) []string {
	var out []string
	for _, c := range r.Checks {
		if c.Status == Fail {
			out = append(out, c.ID)
		}
	}
	if len(out) == 0 && r.Failed() {
		out = append(out, fmt.Sprintf("%d failing check(s)", r.Summary.Fail))
	}
	return out
}

func nodePart(r hostcheck.Report) string {
	if hn := r.Facts.HypervisorHostname; hn != "" {
		return ", hypervisor_hostname " + hn
	}
	return ""
}

// hostNames: each host by its service host (its hypervisor hostname
// where it has none).
func hostNames(hosts []Host, idx []int) []string {
	out := make([]string, 0, len(idx))
	for _, i := range idx {
		n := hosts[i].Host
		if n == "" {
			n = hosts[i].Hypervisor
		}
		out = append(out, n)
	}
	return out
}

// addFindings adds the conflicts to the audited hosts (reps[i] is
// hosts[i]'s) and counts a host they make fail.
func (m *reportMatch) addFindings(reps []HostReport, sum *Summary) {
	for i := range reps {
		if i >= len(m.findings) || len(m.findings[i]) == 0 {
			continue
		}
		failed := reps[i].Failed()
		reps[i].Checks = append(reps[i].Checks, m.findings[i]...)
		reps[i].Finish()
		if !failed && reps[i].Failed() {
			sum.Failing++
		}
	}
}
