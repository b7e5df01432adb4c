package hostcheck

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestReportedBug: fleet reads bug 2125030 from a host's report through
// the verdict its RESIZE-REVERT check carries: a pass is fixed, a warning
// that carries it is carried, and a warning that could not decide, no
// check at all (a report from before the check) or a check without a
// verdict (a report from before checks carried one) is unknown, never
// "fixed". The message's words decide nothing.
func TestReportedBug(t *testing.T) {
	bug := LookupBug(BugResizeRevert)
	if bug == nil {
		t.Fatal("bug 2125030 not in the table")
	}
	carriedMsg := bugCheck(&Facts{}, ResizeRevertCheck, BugExposure{Bug: bug, Known: true, Carried: true, Evidence: "driver.py"}, "p", "c", "u")[0]
	fixed := bugCheck(&Facts{}, ResizeRevertCheck, BugExposure{Bug: bug, Known: true, Evidence: "driver.py"}, "resize revert keeps", "c", "u")[0]
	undecided := bugCheck(&Facts{}, ResizeRevertCheck, BugExposure{Bug: bug, Evidence: "driver.py not readable"}, "p", "c", "u")[0]
	other := bugCheck(&Facts{}, "NVRAM-KEPT", BugExposure{Bug: LookupBug(BugNVRAMRecreated), Known: true, Carried: true, Evidence: "guest.py"}, "p", "c", "u")[0]
	cases := []struct {
		name           string
		checks         []Check
		carried, known bool
	}{
		{"carried", []Check{carriedMsg}, true, true},
		{"fixed", []Check{fixed}, false, true},
		{"undecided", []Check{undecided}, false, false},
		{"report without the check", []Check{{ID: "NVRAM-KEPT", Status: Pass}}, false, false},
		{"another bug's warning", []Check{other}, false, false},
		{"the check without its verdict", []Check{{ID: ResizeRevertCheck, Status: Warn, Message: carriesBug + "2125030: x"}}, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Report{Checks: c.checks}
			if carried, known := r.ReportedBug(BugResizeRevert); carried != c.carried || known != c.known {
				t.Errorf("got carried %v known %v, want %v %v", carried, known, c.carried, c.known)
			}
		})
	}
	if carriedMsg.Bug == nil || *carriedMsg.Bug != (BugVerdict{ID: BugResizeRevert, Carried: Yes}) || fixed.Bug.Carried != No || undecided.Bug.Carried != Unknown {
		t.Errorf("verdicts %+v %+v %+v", carriedMsg.Bug, fixed.Bug, undecided.Bug)
	}
}

// TestBugVerdictJSON: the verdict reads back from a report file as it
// was written, the tri-state as its word.
func TestBugVerdictJSON(t *testing.T) {
	c := Check{ID: ResizeRevertCheck, Status: Warn, Message: "m", Bug: &BugVerdict{ID: BugResizeRevert, Carried: Yes}}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"id":"RESIZE-REVERT","status":"warn","message":"m","bug":{"id":"2125030","carried":"yes"}}`; string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
	var back Check
	if err := json.Unmarshal(b, &back); err != nil || back.Bug == nil || *back.Bug != *c.Bug {
		t.Errorf("read back %+v, %v", back, err)
	}
	if b, _ := json.Marshal(Check{ID: "X", Status: Pass}); strings.Contains(string(b), "bug") {
		t.Errorf("a check without a verdict: %s", b)
	}
}

// TestResizeRevertCondition: bug 2125030 is named with its condition
// wherever it is listed (KNOWN-BUGS, upgrade check): only a revert of a
// move to another host without shared instance storage deletes the secret.
func TestResizeRevertCondition(t *testing.T) {
	for _, b := range KnownBugs {
		if b.ID != BugResizeRevert {
			continue
		}
		if !strings.HasPrefix(b.Title, "resize revert of a vTPM guest ends in ERROR") || !strings.Contains(b.Title, "another host with non-shared instance storage") || !strings.Contains(b.Title, "same-host resize revert keeps the secret") {
			t.Errorf("title %q", b.Title)
		}
		return
	}
	t.Fatal("bug 2125030 not in the table")
}
