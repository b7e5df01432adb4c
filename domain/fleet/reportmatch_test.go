package fleet

import (
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// hostReport is a read report (ReadReport finishes it) of host, whose
// libvirt says node; failing lists the IDs of its failing checks. Its
// state-kept evidence names it, so a host's view says whose report it took.
func hostReport(host, node string, failing ...string) hostcheck.Report {
	r := hostcheck.Report{Host: host, NovaRelease: nova.Zed, Checks: []hostcheck.Check{{ID: "SWTPM", Status: hostcheck.Pass}}}
	r.Facts.HypervisorHostname = node
	r.Facts.StateKept = &hostcheck.StateKept{Kept: hostcheck.Yes, Evidence: "report of " + host + " " + strings.Join(failing, ",")}
	for _, id := range failing {
		r.Checks = append(r.Checks, hostcheck.Check{ID: id, Status: hostcheck.Fail, Message: "broken"})
	}
	r.Finish()
	return r
}

// TestAuditMatchesReportsToTheirOwnHost: a report stands only for the
// hypervisor it belongs to. One naming another host (its
// hypervisor_hostname, or its host name being another's FQDN) is a
// HOST-REPORT finding there and never takes that host's place; where two
// reports claim one host neither is its report, and a failing check of a
// report that stands for no host fails every host it names. No failing
// check leaves the result or the count of failing hosts (the exit
// status). Before, cmp1's report with cmp2's hypervisor_hostname became
// cmp2's report: cmp2's own failing report vanished and the audit passed.
func TestAuditMatchesReportsToTheirOwnHost(t *testing.T) {
	hosts := []Host{
		{Host: "cmp1", Hypervisor: "cmp1.example", State: "up", Status: "enabled"},
		{Host: "cmp2", Hypervisor: "cmp2.example", State: "up", Status: "enabled"},
	}
	// want is, per host, the report it stands for ("" none), the
	// HOST-REPORT status ("" no such finding) and a piece of its message.
	type want struct{ report, conflict, msg string }
	for _, tc := range []struct {
		name    string
		reports []hostcheck.Report
		want    [2]want
		failing int
	}{
		{"each its own", []hostcheck.Report{hostReport("cmp1", "cmp1.example"), hostReport("cmp2", "cmp2.example", "RESUME-ON-BOOT")},
			[2]want{{"cmp1", "", ""}, {"cmp2 RESUME-ON-BOOT", "", ""}}, 1},
		{"libvirt's short name where Nova has the FQDN", []hostcheck.Report{hostReport("cmp1", "cmp1"), hostReport("cmp2", "cmp2")},
			[2]want{{"cmp1", "", ""}, {"cmp2", "", ""}}, 0},
		{"host name unknown to Nova, libvirt's is cmp1's", []hostcheck.Report{hostReport("old-name", "cmp1.example")},
			[2]want{{"old-name", "", ""}, {"", "", ""}}, 0},
		{"host name is the FQDN Nova has as hypervisor", []hostcheck.Report{hostReport("cmp2.example", "")},
			[2]want{{"", "", ""}, {"cmp2.example", "", ""}}, 0},
		{"attack: cmp1's report gives cmp2's hypervisor_hostname, cmp2 fails", []hostcheck.Report{hostReport("cmp1", "cmp2.example"), hostReport("cmp2", "", "KEEP-TPM-STATE")},
			[2]want{{"cmp1", "warn", "also names cmp2"}, {"cmp2 KEEP-TPM-STATE", "warn", "(host cmp1, hypervisor_hostname cmp2.example) names this host but is not taken as its report: it is the report of cmp1"}}, 1},
		{"attack, the other order", []hostcheck.Report{hostReport("cmp2", "", "KEEP-TPM-STATE"), hostReport("cmp1", "cmp2.example")},
			[2]want{{"cmp1", "warn", "also names cmp2"}, {"cmp2 KEEP-TPM-STATE", "warn", "it is the report of cmp1"}}, 1},
		{"cmp2 without a report of its own", []hostcheck.Report{hostReport("cmp1", "cmp2.example")},
			[2]want{{"cmp1", "warn", "also names cmp2"}, {"", "warn", "it is the report of cmp1"}}, 0},
		{"a failing report in cmp2's FQDN beside cmp2's own", []hostcheck.Report{hostReport("cmp2", "cmp2.example"), hostReport("cmp2.example", "", "RESUME-ON-BOOT")},
			[2]want{{"", "", ""}, {"cmp2", "fail", "its failing checks count here: RESUME-ON-BOOT"}}, 1},
		{"two reports of one service host, the later passing", []hostcheck.Report{hostReport("cmp2", "cmp2.example", "KEEP-TPM-STATE"), hostReport("cmp2", "cmp2.example")},
			[2]want{{"", "", ""}, {"", "fail", "another report claims the same host"}}, 1},
		{"one report naming both hosts, owned by neither", []hostcheck.Report{hostReport("cmp1.example", "cmp2.example", "BITLOCKER-RISK")},
			[2]want{{"", "fail", "BITLOCKER-RISK"}, {"", "fail", "BITLOCKER-RISK"}}, 2},
		{"two services on one machine share libvirt's name", []hostcheck.Report{hostReport("cmp1", "cmp2.example"), hostReport("cmp2", "cmp2.example", "KEEP-TPM-STATE")},
			[2]want{{"cmp1", "", ""}, {"cmp2 KEEP-TPM-STATE", "", ""}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := AuditCloud(Cloud{Release: nova.ResolvedRelease{Release: nova.Zed}, Hosts: hosts}, tc.reports)
			if res.Summary.Failing != tc.failing {
				t.Errorf("%d failing host(s), want %d", res.Summary.Failing, tc.failing)
			}
			for i, w := range tc.want {
				r := res.Hosts[i]
				if got := reportUsed(r); got != w.report {
					t.Errorf("%s took the report of %q, want %q", r.Host, got, w.report)
				}
				c := findID(r.Checks, "HOST-REPORT")
				switch {
				case w.conflict == "" && c != nil:
					t.Errorf("%s: unexpected %+v", r.Host, *c)
				case w.conflict != "" && (c == nil || string(c.Status) != w.conflict || !strings.Contains(c.Message, w.msg)):
					t.Errorf("%s: HOST-REPORT %+v, want %s containing %q", r.Host, c, w.conflict, w.msg)
				}
			}
		})
	}
}

// reportUsed is whose report r took: "" none, else the report's host
// and failing checks (two reports of one host differ in those).
func reportUsed(r HostReport) string {
	if r.Facts.StateKept == nil {
		return ""
	}
	return strings.TrimSpace(strings.TrimPrefix(r.Facts.StateKept.Evidence, "report of "))
}

// TestReportIndexServiceHostStays: a report whose libvirt host name is
// another report's service host (what plan verify looks servers' hosts
// up by) never takes that key, in either order. Before, the later report
// in the list took it.
func TestReportIndexServiceHostStays(t *testing.T) {
	own, stray := hostReport("cmp2", "cmp2.example"), hostReport("cmp1", "cmp2")
	for _, reps := range [][]hostcheck.Report{{own, stray}, {stray, own}} {
		idx := ReportIndex(reps)
		if idx["cmp2"].Host != "cmp2" || idx["cmp1"].Host != "cmp1" || idx["cmp2.example"].Host != "cmp2" {
			t.Errorf("%s then %s: cmp2 → %q, cmp1 → %q, cmp2.example → %q", reps[0].Host, reps[1].Host, idx["cmp2"].Host, idx["cmp1"].Host, idx["cmp2.example"].Host)
		}
	}
}
