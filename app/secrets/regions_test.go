package secrets

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud/scale"
)

// One Barbican behind two regions: the catalog lists its endpoint under
// RegionOne (the session's, the synthetic cloud's Nova) and RegionTwo
// (another Nova, at /compute-two/v2.1/). Its secrets may be either
// region's guests', so an instance is gone only when both Novas answered
// 404 for it.

// regionTwo is RegionTwo's Nova: its server list (every project's, at
// 2.69: live's servers, then partial's as the partial records of a cell
// it cannot reach, maxLimit a page when set; answering listStatus when
// set), its service list (a compute service down in an unreachable cell
// when cellDown, the list failing with servicesStatus) and GET
// /servers/{id}: live's and unlisted's servers (unlisted's created
// after the list), failing's 500, any other 404.
type regionTwo struct {
	live, failing  map[string]bool
	unlisted       map[string]bool
	cellDown       bool
	servicesStatus int
	listStatus     int
	partial        []string
	maxLimit       int
}

const regionTwoNova = "/compute-two/v2.1/"

// regionTwoList is the audit's one server list of RegionTwo, a page at a
// time.
const regionTwoList = "GET " + regionTwoNova + "servers/detail?all_tenants=true&limit=1000&[marker=*] [compute 2.69]"

// serve is RegionTwo's Nova as the audit and its cleanup plan ask it.
func (n regionTwo) serve(c *scale.Cloud) {
	n.serveList(c)
	n.serveProof(c)
}

// serveList is RegionTwo, listed in the catalog, with its server list
// only: what the audit alone asks.
func (n regionTwo) serveList(c *scale.Cloud) {
	c.AddRegion("RegionTwo", regionTwoNova, true)
	c.Handle(regionTwoList, func(w http.ResponseWriter, r *http.Request) {
		if n.listStatus != 0 {
			fakecloud.Reply(w, n.listStatus, map[string]any{"computeFault": map[string]any{"code": n.listStatus, "message": "Unexpected API Error."}})
			return
		}
		var ids []string
		for id := range n.live {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		full := len(ids)
		ids = append(ids, n.partial...)
		m := fakecloud.Markers{N: len(ids), ID: func(i int) string { return ids[i] }, MaxLimit: n.maxLimit,
			Index: func(id string) (int, bool) { i := slices.Index(ids, id); return i, i >= 0 }}
		from, to, ok := m.Page(w, r)
		if !ok {
			return
		}
		page := []any{}
		for i := from; i < to; i++ {
			if i < full {
				page = append(page, map[string]any{"id": ids[i], "status": "ACTIVE", "tenant_id": "region-two-tenant",
					"flavor": map[string]any{"original_name": "m1.small", "extra_specs": map[string]any{}}})
			} else { // Nova's partial record of a server in a cell it cannot reach
				page = append(page, map[string]any{"id": ids[i], "status": "UNKNOWN", "tenant_id": "region-two-tenant"})
			}
		}
		body := map[string]any{"servers": page}
		if next := m.Next(r, c.URL+regionTwoNova+"servers/detail", from, to); next != "" {
			body["servers_links"] = fakecloud.Links(next)
		}
		fakecloud.Reply(w, 200, body)
	})
}

// serveProof is RegionTwo's service list and GET by UUID: what the
// cleanup plan asks.
func (n regionTwo) serveProof(c *scale.Cloud) {
	c.Handle("GET "+regionTwoNova+"os-services [compute 2.69]", func(w http.ResponseWriter, r *http.Request) {
		if n.servicesStatus != 0 {
			fakecloud.Reply(w, n.servicesStatus, map[string]any{"computeFault": map[string]any{"code": n.servicesStatus, "message": "Unexpected API Error."}})
			return
		}
		status := map[bool]string{true: "UNKNOWN", false: "enabled"}[n.cellDown]
		fakecloud.Reply(w, 200, map[string]any{"services": []any{map[string]any{"binary": "nova-compute", "host": "two-1", "status": status}}})
	})
	if n.servicesStatus != 0 || n.cellDown {
		return // no GET: nothing it answers could prove anything
	}
	c.Handle("GET "+regionTwoNova+"servers/{id} [compute 2.69]", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		switch {
		case n.live[id] || n.unlisted[id]:
			fakecloud.Reply(w, 200, map[string]any{"server": map[string]any{"id": id, "status": "ACTIVE", "tenant_id": "region-two-tenant"}})
		case n.failing[id]:
			fakecloud.Reply(w, 500, map[string]any{"computeFault": map[string]any{"code": 500, "message": "Unexpected API Error."}})
		default:
			fakecloud.Reply(w, 404, map[string]any{"itemNotFound": map[string]any{"code": 404, "message": "Instance " + id + " could not be found."}})
		}
	})
}

// planIn audits every project of a small synthetic cloud with two
// orphan secrets (RegionOne's Nova answers 404 for both instances, whose
// IDs setup gets) and plans their cleanup; setup changes the cloud
// before the login.
func planIn(t *testing.T, cfg scale.Config, setup func(c *scale.Cloud, orphans []string)) (*scale.Cloud, Audited, vtpmsecret.CleanupPlan) {
	t.Helper()
	c, sess := scaleSession(t, cfg, func(c *scale.Cloud) {
		var orphans []string
		for k := 0; k < cfg.Orphans; k++ {
			orphans = append(orphans, c.ServerID(c.NumServers()+k))
		}
		setup(c, orphans)
	})
	a, err := AuditSecrets(context.Background(), sess, AuditRequest{AllProjects: true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := PlanCleanup(context.Background(), sess, a, 4)
	if err != nil {
		t.Fatal(err)
	}
	return c, a, p
}

var twoOrphans = scale.Config{Guests: 4, Projects: 1, Hypervisors: 1, Orphans: 2}

// stepOf is the plan's step for instance.
func stepOf(t *testing.T, p vtpmsecret.CleanupPlan, instance string) vtpmsecret.CleanupStep {
	t.Helper()
	for _, s := range p.Steps {
		if s.InstanceID == instance {
			return s
		}
	}
	t.Fatalf("no step for instance %s in %+v", instance, p.Steps)
	return vtpmsecret.CleanupStep{}
}

// byUUID counts the GETs by UUID RegionTwo's Nova answered (not its
// server list's pages).
func byUUID(c *scale.Cloud) int {
	return c.Count("GET "+regionTwoNova+"servers/") - c.Count("GET "+regionTwoNova+"servers/detail?")
}

// The session's region's 404 alone deletes nothing: RegionTwo's Nova
// has one of the two instances (a live guest of RegionTwo), whose secret
// is kept, live there; the other, 404 in both regions, is deleted.
// Listed by RegionTwo, the audit already says so and the plan asks
// RegionTwo about the other only; created there after its list, the
// plan's GET finds it (both were 404 in RegionOne).
func TestCleanupPlanSharedKeyManagerOtherRegionLive(t *testing.T) {
	for _, tc := range []struct {
		name     string
		listed   bool
		exists   nova.Existence // the live step's: Nova's word, or none when not asked
		asked    int            // RegionTwo's GETs by UUID
		existsIn int            // the proof's count of servers found
	}{
		{"in RegionTwo's list", true, "", 1, 0},
		{"created in RegionTwo after its list", false, nova.ServerExists, 2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var orphans []string
			c, _, p := planIn(t, twoOrphans, func(c *scale.Cloud, o []string) {
				orphans = o
				n := regionTwo{live: map[string]bool{o[0]: true}}
				if !tc.listed {
					n = regionTwo{unlisted: map[string]bool{o[0]: true}}
				}
				n.serve(c)
			})
			if p.Deletes() != 1 || p.Proof.Gone != 1 || p.Proof.Exists != tc.existsIn {
				t.Fatalf("%d delete(s), proof %+v; want 1 (the instance gone in both regions)", p.Deletes(), p.Proof)
			}
			live, gone := stepOf(t, p, orphans[0]), stepOf(t, p, orphans[1])
			if live.Action != vtpmsecret.CleanupKeep || live.Command != "" || live.Kind != vtpmsecret.OrphanLive || live.Existence != tc.exists || !strings.Contains(live.Reason, "live in region RegionTwo") {
				t.Errorf("RegionTwo's live guest: %+v", live)
			}
			if gone.Action != vtpmsecret.CleanupDelete || !strings.Contains(gone.Reason, "(RegionOne, RegionTwo)") {
				t.Errorf("gone in both: %+v", gone)
			}
			if n := byUUID(c); n != tc.asked {
				t.Errorf("RegionTwo asked about %d instance(s), want %d", n, tc.asked)
			}
			if r := p.Proof.Regions; len(r) != 2 || r[0].Region != "RegionOne" || r[1].Region != "RegionTwo" || r[1].Asked != tc.asked || r[1].Gone != 1 {
				t.Errorf("regions %+v", r)
			}
			var b strings.Builder
			if err := p.Script(&b, "vtpmctl secrets audit --cleanup-plan"); err != nil || strings.Count(b.String(), "secret delete") != 1 || strings.Contains(b.String(), "per region") {
				t.Errorf("%v\n%s", err, b.String())
			}
		})
	}
}

// Both regions' Novas answer 404, every cell up: both secrets are
// deleted. The audit costs RegionTwo's one server list (one page); the
// proof its two service lists and one GET per instance, nothing more.
func TestCleanupPlanSharedKeyManagerGoneEverywhere(t *testing.T) {
	c, _, p := planIn(t, twoOrphans, func(c *scale.Cloud, _ []string) { regionTwo{}.serve(c) })
	if p.Deletes() != 2 || p.Proof.Gone != 2 || !p.Proof.Blocked.Complete() {
		t.Fatalf("%d delete(s), proof %+v; want 2", p.Deletes(), p.Proof)
	}
	if pages, lists, gets := c.Count("GET "+regionTwoNova+"servers/detail?"), c.Count("GET "+regionTwoNova+"os-services"), byUUID(c); pages != 1 || lists != 2 || gets != 2 {
		t.Errorf("RegionTwo: %d server list page(s), %d service list(s), %d GET(s); want 1, 2 and 2", pages, lists, gets)
	}
}

// RegionTwo's Nova cannot be asked, or cannot prove: every secret stays,
// undetermined, its reason naming RegionTwo.
func TestCleanupPlanSharedKeyManagerOtherRegionUnproven(t *testing.T) {
	for _, c := range []struct {
		name   string
		setup  func(*scale.Cloud, []string)
		reason string
	}{
		{"its service list fails", func(c *scale.Cloud, _ []string) { regionTwo{servicesStatus: 500}.serve(c) },
			"region RegionTwo's Nova could not be asked: failed: the service list failed"},
		{"a cell down", func(c *scale.Cloud, _ []string) { regionTwo{cellDown: true}.serve(c) },
			"region RegionTwo's Nova could not be asked: cell_down"},
		{"a GET fails", func(c *scale.Cloud, o []string) { regionTwo{failing: map[string]bool{o[0]: true, o[1]: true}}.serve(c) },
			"region RegionTwo's Nova could not be asked: GET /servers/"},
		{"no compute endpoint", func(c *scale.Cloud, _ []string) {
			c.Catalog = append(c.Catalog, fakecloud.Service{Type: "key-manager", Path: "/key-manager/", Region: "RegionTwo"})
		}, `region RegionTwo's Nova could not be asked: no compute endpoint (interface public) for region "RegionTwo"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, p := planIn(t, twoOrphans, c.setup)
			if p.Deletes() != 0 || p.Proof.Undetermined != 2 {
				t.Fatalf("%d delete(s), proof %+v; want none, 2 undetermined", p.Deletes(), p.Proof)
			}
			for _, s := range p.Steps {
				if s.Kind != vtpmsecret.OrphanUndetermined || !strings.Contains(s.Reason, c.reason) {
					t.Errorf("step %s %q, want %q", s.Kind, s.Reason, c.reason)
				}
			}
		})
	}
}

// A key manager in this region's catalog only: the plan asks this
// region's Nova, as before, and no other.
func TestCleanupPlanOwnKeyManager(t *testing.T) {
	c, _, p := planIn(t, twoOrphans, func(c *scale.Cloud, _ []string) { c.AddRegion("RegionTwo", regionTwoNova, false) })
	if p.Deletes() != 2 || len(p.Proof.Regions) != 0 || p.Proof.ComputeEndpoint != c.URL+"/compute/v2.1/" {
		t.Errorf("%d delete(s), proof %+v", p.Deletes(), p.Proof)
	}
}
