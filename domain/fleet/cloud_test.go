package fleet

import (
	"errors"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// TestUpgradeStart: the one place that decides where an upgrade starts
// (the upgrade check and the report's upgrade section both ask it): a release the
// cloud's evidence leaves open is a start, one older than all is refused.
func TestUpgradeStart(t *testing.T) {
	open := nova.ResolvedRelease{Release: nova.Dalmatian, Candidates: []nova.Release{nova.Caracal, nova.Dalmatian}}
	pinned := nova.ResolvedRelease{Release: nova.Dalmatian, Candidates: []nova.Release{nova.Dalmatian}}
	for _, tc := range []struct {
		res      nova.ResolvedRelease
		to, from nova.Release
		refused  bool
	}{
		{open, nova.Caracal, nova.Caracal, false},
		{open, nova.Dalmatian, nova.Dalmatian, false},
		{open, nova.Gazpacho, nova.Dalmatian, false},
		{open, nova.Bobcat, nova.Dalmatian, true},
		{pinned, nova.Caracal, nova.Dalmatian, true},
	} {
		from, err := UpgradeStart(tc.res, tc.to)
		var older *OlderTargetError
		if from != tc.from || errors.As(err, &older) != tc.refused || (err != nil) != tc.refused {
			t.Errorf("%v to %s: from %s, %v", tc.res.Candidates, tc.to, from, err)
		}
	}
}

// TestReportIndex: reports are found by host and by hypervisor hostname;
// a node name two services share (two nova-computes on one machine)
// finds neither, so no host is compared with the other's report.
func TestReportIndex(t *testing.T) {
	one := func(host, node string) hostcheck.Report {
		return hostcheck.Report{Host: host, Facts: hostcheck.HostInfo{HypervisorHostname: node}}
	}
	idx := ReportIndex([]hostcheck.Report{one("cmp1", "cmp1.x"), one("devcloud", "dc"), one("devcloud-fake", "dc")})
	for key, want := range map[string]string{"cmp1": "cmp1", "cmp1.x": "cmp1", "devcloud": "devcloud", "devcloud-fake": "devcloud-fake", "dc": ""} {
		if got := idx[key].Host; got != want {
			t.Errorf("%s: %q, want %q", key, got, want)
		}
	}
}
