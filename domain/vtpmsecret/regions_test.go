package vtpmsecret

import (
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/completeness"
)

// A key manager two regions share: a secret's instance is gone only when
// both regions' Novas answered 404 for it. One region's 404 alone, a
// region not asked, not reachable, with a cell down or failing, is no
// proof; either region having the server makes it live. The plan's
// header never advises running it per region.
func TestCleanupPlanAcrossRegions(t *testing.T) {
	const secret, instance = "6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d11", "0a1b2c3d-0000-4000-8000-000000000001"
	regions := []string{"RegionOne", "RegionTwo"}
	gone := nova.ExistenceProof{State: nova.ServerGone, Reason: "GET /servers/" + instance + " answered 404 to an admin, every cell up"}
	exists := nova.ExistenceProof{State: nova.ServerExists, Status: "ACTIVE", ProjectID: "tenant", Reason: "GET answered the server (status ACTIVE)"}
	failed := nova.ExistenceProof{State: nova.ServerUndetermined, Reason: "GET /servers/" + instance + " failed: 503"}
	says := func(region string, ex nova.ExistenceProof) RegionAnswer {
		return RegionAnswer{Region: region, Proof: ServerProof{Endpoint: "https://nova." + region + "/v2.1/", Servers: map[string]nova.ExistenceProof{instance: ex}}}
	}
	cellDown := completeness.Gaps{{Kind: completeness.CellDown, Detail: "Nova cannot reach the cell of 1 compute service(s)"}}
	for _, c := range []struct {
		name    string
		answers []RegionAnswer
		state   nova.Existence
		reason  string // in the step's reason
		deletes int
		blocked string // in the proof's Blocked
	}{
		{"the session's region 404, the other not asked", []RegionAnswer{says("RegionOne", gone)},
			nova.ServerUndetermined, "region RegionTwo's Nova was not asked", 0, ""},
		{"both 404, every cell up", []RegionAnswer{says("RegionOne", gone), says("RegionTwo", gone)},
			nova.ServerGone, "in each region whose catalog lists the key manager (RegionOne, RegionTwo)", 1, ""},
		{"live in the other region", []RegionAnswer{says("RegionOne", gone), says("RegionTwo", exists)},
			nova.ServerExists, "live in region RegionTwo", 0, ""},
		{"live in the session's region: the other not asked", []RegionAnswer{says("RegionOne", exists)},
			nova.ServerExists, "live in region RegionOne", 0, ""},
		{"the other region has no Nova", []RegionAnswer{says("RegionOne", gone), {Region: "RegionTwo", Err: "no compute endpoint (interface public) for region \"RegionTwo\""}},
			nova.ServerUndetermined, "region RegionTwo's Nova could not be asked: no compute endpoint", 0, "region RegionTwo's Nova could not be asked"},
		{"the other region's GET failed", []RegionAnswer{says("RegionOne", gone), says("RegionTwo", failed)},
			nova.ServerUndetermined, "region RegionTwo's Nova could not be asked: GET /servers/" + instance + " failed: 503", 0, ""},
		{"the other region has a cell down", []RegionAnswer{says("RegionOne", gone),
			{Region: "RegionTwo", Proof: ServerProof{Endpoint: "https://nova.two/v2.1/", Blocked: cellDown, Servers: map[string]nova.ExistenceProof{
				instance: {State: nova.ServerUndetermined, Reason: cellDown.String()}}}}},
			nova.ServerUndetermined, "region RegionTwo's Nova could not be asked: cell_down", 0, "region RegionTwo: Nova cannot reach the cell"},
		{"the session's region failed: the other not asked", []RegionAnswer{says("RegionOne", failed)},
			nova.ServerUndetermined, "region RegionOne's Nova could not be asked: GET", 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Result{Orphans: []Orphan{{Secret: Secret{ID: secret, InstanceID: instance, ProjectID: "p1", CreatorID: "nova"}, Kind: OrphanGone}}}
			proof := AcrossRegions(regions, []string{instance}, c.answers)
			p := NewCleanupPlan(r, Origin{SecretsURL: "https://kms/v1/secrets/"}, proof, now)
			st := p.Steps[0]
			if st.Existence != c.state || !strings.Contains(st.Reason, c.reason) || p.Deletes() != c.deletes {
				t.Errorf("existence %s (%q), %d delete(s); want %s (%q), %d", st.Existence, st.Reason, p.Deletes(), c.state, c.reason, c.deletes)
			}
			if c.blocked != "" && !strings.Contains(p.Proof.Blocked.String(), c.blocked) || c.blocked == "" && !p.Proof.Blocked.Complete() {
				t.Errorf("blocked %q, want %q", p.Proof.Blocked, c.blocked)
			}
			if len(p.Proof.Regions) != 2 || p.Proof.Regions[0].Region != "RegionOne" || p.Proof.ComputeEndpoint != "https://nova.RegionOne/v2.1/" {
				t.Errorf("proof %+v", p.Proof)
			}
			var b strings.Builder
			if err := p.Script(&b, "the cleanup plan"); err != nil {
				t.Fatal(err)
			}
			s := b.String()
			if strings.Contains(s, "per region") || !strings.Contains(s, "# The catalog lists this key manager under 2 regions (RegionOne, RegionTwo)") ||
				strings.Count(s, "secret delete") != c.deletes {
				t.Errorf("script:\n%s", s)
			}
		})
	}
}

// Each region is asked about what every region before it proved gone:
// the answers decide each UUID on its own, and the counts say what each
// region was asked.
func TestAcrossRegionsCounts(t *testing.T) {
	const a, b, c = "aaaaaaaa-0000-4000-8000-000000000001", "bbbbbbbb-0000-4000-8000-000000000002", "cccccccc-0000-4000-8000-000000000003"
	one := ServerProof{Endpoint: "https://one/", Servers: map[string]nova.ExistenceProof{
		a: {State: nova.ServerGone}, b: {State: nova.ServerExists}, c: {State: nova.ServerGone}}}
	if got := GoneIn(one, []string{a, b, c}); strings.Join(got, ",") != a+","+c {
		t.Fatalf("asked of the next region: %q", got)
	}
	two := ServerProof{Endpoint: "https://two/", Servers: map[string]nova.ExistenceProof{a: {State: nova.ServerGone}, c: {State: nova.ServerExists}}}
	p := AcrossRegions([]string{"R1", "R2"}, []string{a, b, c}, []RegionAnswer{{Region: "R1", Proof: one}, {Region: "R2", Proof: two}})
	if p.Servers[a].State != nova.ServerGone || p.Servers[b].State != nova.ServerExists || p.Servers[b].Region != "" ||
		p.Servers[c].State != nova.ServerExists || p.Servers[c].Region != "R2" {
		t.Errorf("%+v", p.Servers)
	}
	if r := p.Regions; len(r) != 2 || r[0].Asked != 3 || r[0].Gone != 2 || r[1].Asked != 2 || r[1].Gone != 1 || r[1].ComputeEndpoint != "https://two/" {
		t.Errorf("%+v", p.Regions)
	}
}

// An orphan a project-scoped audit could not decide: the other region's
// Nova has its server, so it is live there, not an orphan of this one.
func TestSettleUndeterminedAcrossRegions(t *testing.T) {
	const secret, instance = "6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d11", "0a1b2c3d-0000-4000-8000-000000000001"
	r := Result{Orphans: []Orphan{{Secret: Secret{ID: secret, InstanceID: instance, ProjectID: "p1"}, Kind: OrphanUndetermined}}}
	proof := AcrossRegions([]string{"RegionOne", "RegionTwo"}, []string{instance}, []RegionAnswer{
		{Region: "RegionOne", Proof: ServerProof{Servers: map[string]nova.ExistenceProof{instance: {State: nova.ServerGone}}}},
		{Region: "RegionTwo", Proof: ServerProof{Servers: map[string]nova.ExistenceProof{instance: {State: nova.ServerExists, ProjectID: "t2", Status: "ACTIVE"}}}},
	})
	SettleUndetermined(&r, proof)
	if o := r.Orphans[0]; o.Kind != OrphanLive || o.Region != "RegionTwo" || !strings.Contains(o.Reason, "exists in region RegionTwo") {
		t.Errorf("%s %q", o.Kind, o.Reason)
	}
}

// The audit, when the key manager is shared: a secret whose instance
// another sharing region's Nova lists is that region's live guest's; an
// instance no list holds is gone only when every list is complete, and
// undetermined otherwise, its reason and a partial read naming the
// region. A nova/instance consumer is worded the same way. Pure: the
// lists are in Facts.Regions.
func TestAuditOtherRegions(t *testing.T) {
	const there, nowhere = "aaaaaaaa-0000-4000-8000-000000000001", "bbbbbbbb-0000-4000-8000-000000000002"
	var two nova.ServerIDs
	two.Add(there)
	cellDown := completeness.Gaps{{Kind: completeness.CellDown, Detail: "Nova listed 1 server(s) as partial records (status UNKNOWN): a cell is not answering"}}
	scope := completeness.Gaps{{Kind: completeness.Scope, Detail: "the servers of the token's own project only"}}
	for _, c := range []struct {
		name      string
		regions   []RegionServers
		ownGaps   completeness.Gaps // this region's list's (none: complete)
		there     OrphanKind
		nowhere   OrphanKind
		reason    string // in nowhere's reason
		gap       completeness.Kind
		gapDetail string // in the result's Incomplete
		consumer  string // the guest's consumer naming nowhere, in its finding
	}{
		{"this region's key manager alone", nil, nil, OrphanGone, OrphanGone, "instance " + nowhere + " no longer exists: it is in no project's server list", "", "", "which no longer exists"},
		{"RegionTwo lists one", []RegionServers{{Region: "RegionTwo", Servers: two}}, nil, OrphanLive, OrphanGone,
			"no project's server list, neither this region's nor region RegionTwo's (the key manager is theirs too)", "", "", "which no longer exists"},
		{"RegionTwo's list failed after a page", []RegionServers{{Region: "RegionTwo", Servers: two, Err: "listing servers: 500"}}, nil, OrphanLive, OrphanUndetermined,
			"cannot prove it gone (failed: region RegionTwo's servers could not be listed: listing servers: 500", completeness.Failed, "region RegionTwo's servers could not be listed", "is not in the audited projects"},
		{"RegionTwo has a cell down", []RegionServers{{Region: "RegionTwo", Servers: two, Gaps: cellDown}}, nil, OrphanLive, OrphanUndetermined,
			"(cell_down: region RegionTwo: Nova listed 1 server(s) as partial records", completeness.CellDown, "region RegionTwo: Nova listed", "is not in the audited projects"},
		{"the catalog cannot say", []RegionServers{{Err: "not a Keystone v3 token: the catalog's regions cannot be read"}}, nil, OrphanUndetermined, OrphanUndetermined,
			"which regions share the key manager cannot be read from the catalog (not a Keystone v3 token", completeness.Failed, "cannot be read from the catalog", "is not in the audited projects"},
		{"this region's list is partial", []RegionServers{{Region: "RegionTwo", Servers: two}}, scope, OrphanLive, OrphanUndetermined,
			"cannot prove it gone (scope: the servers of the token's own project only)", completeness.Scope, "own project only", "is not in the audited projects"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := baseFacts()
			f.API = API{1, 1}
			f.Regions, f.ServerGaps, f.CompleteServers = c.regions, c.ownGaps, c.ownGaps.Complete()
			f.Secrets.mut(0).Consumers = []Consumer{NovaConsumer("srv1"), NovaConsumer(nowhere)}
			f.Secrets.Add(Secret{ID: "s-there", InstanceID: there, ProjectID: "p1", CreatorID: "nova", Created: now},
				Secret{ID: "s-nowhere", InstanceID: nowhere, ProjectID: "p1", CreatorID: "nova", Created: now})
			for _, r := range []Result{Audit(f, now), AuditStreamed(f, now)} {
				if len(r.Orphans) != 2 {
					t.Fatalf("orphans %+v", r.Orphans)
				}
				got := map[string]Orphan{r.Orphans[0].InstanceID: r.Orphans[0], r.Orphans[1].InstanceID: r.Orphans[1]}
				th, no := got[there], got[nowhere]
				if th.Kind != c.there || th.Live != (c.there == OrphanLive) || c.there == OrphanLive && (th.Region != "RegionTwo" || !strings.HasPrefix(th.Reason, "live in region RegionTwo: ")) {
					t.Errorf("listed by RegionTwo: %s live=%v region %q %q", th.Kind, th.Live, th.Region, th.Reason)
				}
				if no.Kind != c.nowhere || no.Live || no.Region != "" || !strings.Contains(no.Reason, c.reason) {
					t.Errorf("in no list: %s %q, want %s %q", no.Kind, no.Reason, c.nowhere, c.reason)
				}
				wantOrphans, wantUndetermined := 0, 0
				for _, k := range []OrphanKind{c.there, c.nowhere} {
					wantOrphans += map[bool]int{true: 1}[k == OrphanGone]
					wantUndetermined += map[bool]int{true: 1}[k == OrphanUndetermined]
				}
				if s := r.Summary; s.Orphans != wantOrphans || s.Undetermined != wantUndetermined {
					t.Errorf("summary %+v", s)
				}
				if c.gap == "" && len(r.Incomplete) != 0 || c.gap != "" && !strings.Contains(r.Incomplete.String(), string(c.gap)+": ") ||
					!strings.Contains(r.Incomplete.String(), c.gapDetail) {
					t.Errorf("incomplete %q, want %s %q", r.Incomplete, c.gap, c.gapDetail)
				}
				var consumer Finding
				r.EachGuest(func(g GuestResult) bool {
					for _, fd := range g.Findings {
						if fd.Check == CheckSecretConsumer {
							consumer = fd
						}
					}
					return false
				})
				if !strings.Contains(consumer.Message, "server "+nowhere+", "+c.consumer) && !strings.Contains(consumer.Message, "server "+nowhere+" "+c.consumer) {
					t.Errorf("consumer: %q, want %q", consumer.Message, c.consumer)
				}
			}
		})
	}
	// a consumer naming RegionTwo's guest says where it lives
	f := baseFacts()
	f.API = API{1, 1}
	f.Regions = []RegionServers{{Region: "RegionTwo", Servers: two}}
	f.Secrets.mut(0).Consumers = []Consumer{NovaConsumer(there)}
	if got := finding(Audit(f, now), CheckSecretConsumer); !strings.Contains(got.Message, "server "+there+", live in region RegionTwo") {
		t.Errorf("consumer of RegionTwo's guest: %q", got.Message)
	}
}
