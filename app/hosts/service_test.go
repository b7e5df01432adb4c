package hosts

import (
	"context"
	"strings"
	"testing"

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

// TestAudit: the service settles the release from the cloud (one
// versions document), lists the hypervisors and every project's servers
// once, and audits every host; a host check report joins its host.
func TestAudit(t *testing.T) {
	c, sess := scaleSession(t, scale.Config{Guests: 120, Others: 30, Projects: 3, Hypervisors: 60, Images: 5, Microversion: "2.93"})
	rep := hostcheck.Report{Host: "cmp-00001", NovaRelease: nova.Zed, Checks: []hostcheck.Check{}}
	res, err := Audit(context.Background(), sess, AuditRequest{HostReports: []hostcheck.Report{rep}})
	if err != nil {
		t.Fatal(err)
	}
	st := c.Stats()
	if st.NUnexpected != 0 {
		t.Fatalf("unexpected requests: %v", st.Unexpected)
	}
	for route, want := range map[string]int{"GET /compute/v2.1/": 1, "GET /compute/v2.1/os-hypervisors/detail": 1, "GET /compute/v2.1/servers/detail": 1,
		"GET /placement/resource_providers": len(fleet.TPMTraits)} {
		if st.ByRoute[route] != want {
			t.Errorf("%s: %d requests, want %d (%v)", route, st.ByRoute[route], want, st.Routes())
		}
	}
	if res.Release != nova.Zed || res.Resolved.Release != nova.Zed || res.Summary.Hosts != 60 || len(res.Hosts) != 60 || res.Summary.AtRisk != 120 {
		t.Errorf("release %s, summary %+v, %d hosts", res.Release, res.Summary, len(res.Hosts))
	}
	if res.Schema != fleet.Schema {
		t.Errorf("schema %q", res.Schema)
	}
	compared := 0
	for _, r := range res.Hosts {
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

// TestAuditGivenInventory: a caller that listed the servers already
// (one list for several audits) hands them over: no server list here.
func TestAuditGivenInventory(t *testing.T) {
	c, sess := scaleSession(t, scale.Config{Guests: 10, Projects: 1, Hypervisors: 4, Images: 1, Microversion: "2.93"})
	inv := nova.Inventory{Guests: nova.NewGuestList([]nova.VTPMGuest{{ServerID: "s1", Host: "cmp-00000", Mode: nova.SecretUser}}...)}
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
	c, sess := scaleSession(t, scale.Config{Guests: 120, Others: 30, Projects: 3, Hypervisors: 60, Images: 5, Microversion: "2.93", VolumeBacked: 4})
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

func findID(cs []hostcheck.Check, id string) *hostcheck.Check {
	for i := range cs {
		if cs[i].ID == id {
			return &cs[i]
		}
	}
	return nil
}
