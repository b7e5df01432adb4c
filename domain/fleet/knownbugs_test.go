package fleet

import (
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// TestKnownBugFixes: each release pair against the table's fixed
// versions (31.3.0, 32.2.0, 33.0.0; 2122288 also 30.3.0): a release
// after the master fix has it in every package, a release with a
// backport only from that point release, an older one not at all.
func TestKnownBugFixes(t *testing.T) {
	type want struct {
		from, to hostcheck.BugFix
		fixedIn  string
		byUpg    bool
		msg      string
	}
	cases := []struct {
		from, to nova.Release
		bugs     map[hostcheck.BugID]want
	}{
		{nova.Epoxy, nova.Gazpacho, map[hostcheck.BugID]want{
			"2131730/1633447": {hostcheck.FixPoint, hostcheck.FixAll, "33.0.0", true, "fixed in 2026.1 (nova 33.0.0); 2025.1 has it only in its later point releases"},
			"2122288":         {hostcheck.FixPoint, hostcheck.FixAll, "33.0.0", true, "fixed in 2026.1 (nova 33.0.0)"},
		}},
		{nova.Flamingo, nova.Hibiscus, map[hostcheck.BugID]want{
			"2118888": {hostcheck.FixPoint, hostcheck.FixAll, "33.0.0", true, "fixed in 2026.2 (since 2026.1, nova 33.0.0)"},
		}},
		{nova.Dalmatian, nova.Epoxy, map[hostcheck.BugID]want{
			"2118888": {hostcheck.FixNone, hostcheck.FixPoint, "31.3.0", false, "fixed in 2025.1 only from nova 31.3.0: older 2025.1 packages still carry it"},
			"2122288": {hostcheck.FixPoint, hostcheck.FixPoint, "31.3.0", false, "2024.2 has it only in its later point releases"},
		}},
		{nova.Caracal, nova.Dalmatian, map[hostcheck.BugID]want{
			"2125030": {hostcheck.FixNone, hostcheck.FixNone, "", false, "not fixed in 2024.2 (fixed in nova 31.3.0, 32.2.0, 33.0.0)"},
			"2122288": {hostcheck.FixNone, hostcheck.FixPoint, "30.3.0", false, "only from nova 30.3.0"},
		}},
		{nova.Zed, nova.Gazpacho, map[hostcheck.BugID]want{
			"2125030": {hostcheck.FixNone, hostcheck.FixAll, "33.0.0", true, "fixed in 2026.1 (nova 33.0.0)"},
		}},
		{nova.Gazpacho, nova.Hibiscus, map[hostcheck.BugID]want{
			"2131730/1633447": {hostcheck.FixAll, hostcheck.FixAll, "33.0.0", false, "fixed in 2026.2 (since 2026.1, nova 33.0.0); 2026.1 already has the fix"},
		}},
		{nova.ReleaseUnknown, nova.Epoxy, map[hostcheck.BugID]want{
			"2118888": {hostcheck.FixUnknown, hostcheck.FixPoint, "31.3.0", false, "only from nova 31.3.0"},
		}},
	}
	for _, c := range cases {
		got := KnownBugFixes(c.from, c.to)
		if len(got) != len(hostcheck.KnownBugs) {
			t.Fatalf("%s→%s: %d bugs, want every one of %d", c.from, c.to, len(got), len(hostcheck.KnownBugs))
		}
		for _, k := range got {
			w, ok := c.bugs[k.ID]
			if !ok {
				continue
			}
			if k.From != w.from || k.To != w.to || k.FixedIn != w.fixedIn || k.FixedByUpgrade != w.byUpg || !strings.Contains(k.Message, w.msg) {
				t.Errorf("%s→%s bug %s: %+v\nwant %+v", c.from, c.to, k.ID, k, w)
			}
		}
	}
	// The result and its table carry them.
	r := UpgradeImpact(nova.Epoxy, nova.Gazpacho, nil, nova.GuestList{})
	foot := strings.Join(r.Table().Footer, "\n")
	if len(r.KnownBugs) != len(hostcheck.KnownBugs) || !strings.Contains(foot, "known bug 2125030 (resize revert") || !strings.Contains(foot, "fixed in 2026.1 (nova 33.0.0)") {
		t.Errorf("upgrade result: %+v\n%s", r.KnownBugs, foot)
	}
}
