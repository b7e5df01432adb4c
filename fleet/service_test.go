package fleet

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/scalecloud"
	"github.com/vtpmctl/vtpmctl/internal/scalecloud/scaletest"
)

// scaleSession is scaletest.Session with the login left out of the counts.
func scaleSession(t *testing.T, cfg scalecloud.Config) (*scalecloud.Cloud, *cloud.Session) {
	t.Helper()
	c, sess := scaletest.Session(t, cfg)
	c.Reset() // count only what the job asks, not the login
	return c, sess
}

// TestAudit: the service settles the release from the cloud (one
// versions document), lists the hypervisors and every project's servers
// once, and audits every host; a host check report joins its host.
func TestAudit(t *testing.T) {
	c, sess := scaleSession(t, scalecloud.Config{Guests: 120, Others: 30, Projects: 3, Hypervisors: 60, Images: 5, Microversion: "2.93"})
	rep := hostcheck.Report{Host: "cmp-00001", NovaRelease: "zed", Checks: []hostcheck.Check{}}
	res, err := Audit(context.Background(), sess, AuditRequest{HostReports: []hostcheck.Report{rep}})
	if err != nil {
		t.Fatal(err)
	}
	st := c.Stats()
	if st.NUnexpected != 0 {
		t.Fatalf("unexpected requests: %v", st.Unexpected)
	}
	for route, want := range map[string]int{"GET /compute/v2.1/": 1, "GET /compute/v2.1/os-hypervisors/detail": 1, "GET /compute/v2.1/servers/detail": 1,
		"GET /placement/resource_providers": len(TPMTraits)} {
		if st.ByRoute[route] != want {
			t.Errorf("%s: %d requests, want %d (%v)", route, st.ByRoute[route], want, st.Routes())
		}
	}
	if res.Release != nova.Zed || res.Resolved.Release != nova.Zed || res.Summary.Hosts != 60 || len(res.Reports) != 60 || res.Summary.AtRisk != 120 {
		t.Errorf("release %s, summary %+v, %d reports", res.Release, res.Summary, len(res.Reports))
	}
	if res.Schema != Schema {
		t.Errorf("schema %q", res.Schema)
	}
	compared := 0
	for _, r := range res.Reports {
		c := findID(r.Checks, "CONFIG-DRIFT")
		if joined := r.Host == rep.Host; (c != nil && c.Status != hostcheck.Warn) != joined {
			t.Errorf("%s: CONFIG-DRIFT %+v (report given: %v)", r.Host, c, joined)
		} else if joined {
			compared++
		}
	}
	if compared != 1 {
		t.Errorf("the report of %s was compared %d times", rep.Host, compared)
	}
}

// TestCheckUpgrade: a target older than the cloud is refused as a typed
// error before anything is listed; --from names the caller's flag when
// the release is unknown; a real upgrade says what it strands.
func TestCheckUpgrade(t *testing.T) {
	c, sess := scaleSession(t, scalecloud.Config{Guests: 40, Projects: 2, Hypervisors: 8, Images: 2, Microversion: "2.93"})
	_, err := CheckUpgrade(context.Background(), sess, UpgradeRequest{To: nova.Yoga, From: nova.ReleaseEvidence{FlagName: "--from"}})
	var older *OlderTargetError
	if !errors.As(err, &older) || older.To != nova.Yoga || older.Cloud != nova.Zed {
		t.Fatalf("older target: %v", err)
	}
	if st := c.Stats(); st.ByRoute["GET /compute/v2.1/servers/detail"]+st.ByRoute["GET /compute/v2.1/os-hypervisors/detail"] != 0 {
		t.Errorf("listed before refusing: %v", st.Routes())
	}
	u, err := CheckUpgrade(context.Background(), sess, UpgradeRequest{To: nova.Dalmatian, From: nova.ReleaseEvidence{FlagName: "--from"}})
	if err != nil {
		t.Fatal(err)
	}
	if u.From != "zed" || u.To != "2024.2" || u.Schema != UpgradeSchema || len(u.Hosts) == 0 || u.Resolved.Release != nova.Zed {
		t.Errorf("upgrade %+v", u)
	}
	if st := c.Stats(); st.NUnexpected != 0 {
		t.Errorf("unexpected requests: %v", st.Unexpected)
	}
}

// TestUpgradeStart: the one place that decides where an upgrade starts
// (upgrade check --to and report --upgrade-to both ask it): a release the
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

// TestCheckUpgradeNamesFrom: on a cloud whose API leaves 2024.1 and
// 2024.2 open, the warning tells upgrade check's own flag (--from), not
// --nova-release, which upgrade check does not have.
func TestCheckUpgradeNamesFrom(t *testing.T) {
	_, sess := scaleSession(t, scalecloud.Config{Guests: 4, Projects: 1, Hypervisors: 2, Images: 1, Microversion: "2.96"})
	u, err := CheckUpgrade(context.Background(), sess, UpgradeRequest{To: nova.Gazpacho, From: nova.ReleaseEvidence{FlagName: "--from"}})
	if err != nil {
		t.Fatal(err)
	}
	if w := u.Resolved.Warning(nil); !strings.Contains(w, "pass --from to settle") || strings.Contains(w, "--nova-release") {
		t.Errorf("warning %q", w)
	}
	if u.From != "2024.1 or 2024.2" {
		t.Errorf("from %q", u.From)
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

// TestAuditGivenInventory: a caller that listed the servers already
// (one list for several audits) hands them over: no server list here.
func TestAuditGivenInventory(t *testing.T) {
	c, sess := scaleSession(t, scalecloud.Config{Guests: 10, Projects: 1, Hypervisors: 4, Images: 1, Microversion: "2.93"})
	inv := nova.Inventory{Guests: []nova.VTPMGuest{{ServerID: "s1", Host: "cmp-00000", Mode: nova.SecretUser}}}
	res, err := Audit(context.Background(), sess, AuditRequest{Release: nova.ReleaseEvidence{Flag: nova.Zed}, Inventory: &inv})
	if err != nil {
		t.Fatal(err)
	}
	st := c.Stats()
	if st.ByRoute["GET /compute/v2.1/servers/detail"] != 0 || st.ByRoute["GET /compute/v2.1/"] != 0 || st.NUnexpected != 0 {
		t.Errorf("requests: %v %v", st.Routes(), st.Unexpected)
	}
	if res.Summary.AtRisk != 1 || res.Summary.Hosts != 4 {
		t.Errorf("summary %+v", res.Summary)
	}
}

// TestAuditVolumeBacked: a guest whose vTPM comes from its boot volume's
// image metadata is at risk like any other (the fleet audit used to list
// servers without Cinder and missed it); one volume list serves all.
func TestAuditVolumeBacked(t *testing.T) {
	c, sess := scaleSession(t, scalecloud.Config{Guests: 120, Others: 30, Projects: 3, Hypervisors: 60, Images: 5, Microversion: "2.93", VolumeBacked: 4})
	res, err := Audit(context.Background(), sess, AuditRequest{})
	if err != nil {
		t.Fatal(err)
	}
	st := c.Stats()
	if st.NUnexpected != 0 {
		t.Fatalf("unexpected requests: %v", st.Unexpected)
	}
	vols := 0
	for route, n := range st.ByRoute {
		if strings.Contains(route, "/volumes/detail") {
			vols += n
		}
	}
	if vols != 1 {
		t.Errorf("%d volume lists, want 1 (%v)", vols, st.Routes())
	}
	if res.Summary.AtRisk != 120 {
		t.Errorf("at risk %d, want every one of the 120 vTPM guests (a fourth boot from volumes)", res.Summary.AtRisk)
	}
}
