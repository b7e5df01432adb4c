package hostcheck

import (
	"strings"
	"testing"
)

// TestReportedBug: fleet reads bug 2125030 from a host's report through
// its RESIZE-REVERT check: a pass is fixed, a warning that carries it is
// carried, and a warning that could not decide or no check at all (a
// report from before the check) is unknown, never "fixed".
func TestReportedBug(t *testing.T) {
	var bug *KnownBug
	for i := range KnownBugs {
		if KnownBugs[i].ID == "2125030" {
			bug = &KnownBugs[i]
		}
	}
	carriedMsg := bugCheck(ResizeRevertCheck, BugExposure{Bug: bug, Known: true, Carried: true, Evidence: "driver.py"}, "p", "c", "u")[0]
	undecided := bugCheck(ResizeRevertCheck, BugExposure{Bug: bug, Evidence: "driver.py not readable"}, "p", "c", "u")[0]
	cases := []struct {
		name           string
		checks         []Check
		carried, known bool
	}{
		{"carried", []Check{carriedMsg}, true, true},
		{"fixed", []Check{{ID: ResizeRevertCheck, Status: Pass, Message: "resize revert keeps"}}, false, true},
		{"undecided", []Check{undecided}, false, false},
		{"report without the check", []Check{{ID: "NVRAM-KEPT", Status: Pass}}, false, false},
		{"another bug's warning", []Check{{ID: "NVRAM-KEPT", Status: Warn, Message: carriesBug + "2131730/1633447: x"}}, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Report{Checks: c.checks}
			if carried, known := r.ReportedBug(ResizeRevertCheck); carried != c.carried || known != c.known {
				t.Errorf("got carried %v known %v, want %v %v", carried, known, c.carried, c.known)
			}
		})
	}
}

// TestResizeRevertCondition: bug 2125030 is named with its condition
// wherever it is listed (KNOWN-BUGS, upgrade check): only a revert of a
// move to another host without shared instance storage deletes the secret.
func TestResizeRevertCondition(t *testing.T) {
	for _, b := range KnownBugs {
		if b.ID != "2125030" {
			continue
		}
		if !strings.HasPrefix(b.Title, "resize revert of a vTPM guest ends in ERROR") || !strings.Contains(b.Title, "another host with non-shared instance storage") || !strings.Contains(b.Title, "same-host resize revert keeps the secret") {
			t.Errorf("title %q", b.Title)
		}
		return
	}
	t.Fatal("bug 2125030 not in the table")
}
