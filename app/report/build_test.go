package report

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/app/secrets"
	"github.com/vtpmctl/vtpmctl/app/secrets/progresstest"
	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud/scale"
)

// scaleSession is scale.Session with the login left out of the counts.
func scaleSession(t *testing.T, cfg scale.Config) (*scale.Cloud, *cloud.Session) {
	t.Helper()
	c, sess := scale.Session(t, cfg)
	c.Reset() // count only what the job asks, not the login
	return c, sess
}

// TestBuild: the fleet audit, the secrets audit and the upgrade check
// share one release detection, one hypervisor list and one server list;
// every section is filled; the open release's warning names the
// caller's flag; the request's Progress sees the secrets audit's phases
// (the servers come listed: no server phase), never past their totals.
func TestBuild(t *testing.T) {
	// 2.96 is 2024.1 or 2024.2, whose vTPM rules differ.
	c, sess := scaleSession(t, scale.Config{Guests: 60, Others: 10, Projects: 3, Hypervisors: 12, Images: 3, Microversion: "2.96"})
	host := hostcheck.Report{Host: "cmp-00000", NovaRelease: nova.Dalmatian, Checks: []hostcheck.Check{}}
	var progress progresstest.Log
	in, err := Build(context.Background(), sess, Request{Release: nova.ReleaseEvidence{}, UpgradeTo: nova.Caracal, HostReports: []hostcheck.Report{host},
		Progress: progress.Report})
	if err != nil {
		t.Fatal(err)
	}
	want := []secrets.Phase{secrets.PhaseSecrets, secrets.PhaseUsers}
	if got := progress.Phases(t); !slices.Equal(got, want) {
		t.Errorf("progress phases %v, want %v", got, want)
	}
	st := c.Stats()
	if st.NUnexpected != 0 {
		t.Fatalf("unexpected requests: %v", st.Unexpected)
	}
	for route, want := range map[string]int{"GET /compute/v2.1/": 1, "GET /compute/v2.1/os-hypervisors/detail": 1, "GET /compute/v2.1/servers/detail": 1} {
		if st.ByRoute[route] != want {
			t.Errorf("%s: %d requests, want %d\n%s", route, st.ByRoute[route], want, strings.Join(st.Routes(), "\n"))
		}
	}
	if in.Fleet == nil || in.Secrets == nil || in.Upgrade == nil || len(in.Hosts) != 1 || in.Cloud != "scale" {
		t.Fatalf("sections: fleet %v secrets %v upgrade %v hosts %d cloud %q", in.Fleet != nil, in.Secrets != nil, in.Upgrade != nil, len(in.Hosts), in.Cloud)
	}
	// 2024.1 is one of the releases the cloud leaves open: an upgrade
	// from it, as upgrade check --to 2024.1 answers.
	if in.Fleet.Summary.Hosts != 12 || in.Secrets.Summary.Guests != 60 || in.Upgrade.To != "2024.1" || in.Upgrade.From != "2024.1 or 2024.2" {
		t.Errorf("fleet %+v, secrets %+v, upgrade %s -> %s", in.Fleet.Summary, in.Secrets.Summary, in.Upgrade.From, in.Upgrade.To)
	}
	if w := in.Resolved.Warning(nil); !strings.Contains(w, "pass nova_release to settle") {
		t.Errorf("warning %q", w)
	}
}

// TestBuildRefusesOlderUpgradeFirst: an upgrade target older than every
// release the cloud leaves open is the typed error upgrade check gives,
// before the fleet or any server is listed.
func TestBuildRefusesOlderUpgradeFirst(t *testing.T) {
	c, sess := scaleSession(t, scale.Config{Guests: 5, Projects: 1, Hypervisors: 2, Images: 1, Microversion: "2.96"})
	_, err := Build(context.Background(), sess, Request{Release: nova.ReleaseEvidence{}, UpgradeTo: nova.Bobcat})
	var older *fleet.OlderTargetError
	if !errors.As(err, &older) || older.To != nova.Bobcat {
		t.Fatalf("%v", err)
	}
	if st := c.Stats(); st.ByRoute["GET /compute/v2.1/servers/detail"]+st.ByRoute["GET /compute/v2.1/os-hypervisors/detail"] != 0 {
		t.Errorf("listed before refusing: %v", st.Routes())
	}
}
