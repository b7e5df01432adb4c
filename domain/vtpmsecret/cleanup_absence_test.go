package vtpmsecret

import (
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/completeness"
)

// No delete line from an incomplete read, whatever made it incomplete:
// the audit calls the secret's instance undetermined (never gone) where
// its server list was partial, and the plan deletes only what Nova's
// answer for that UUID proved gone. Each cause is one row: the gaps the
// inventory or scope carries, and the answer compute.ProveGone gives in
// that state of the cloud (its TestProveGone shows it gives it).
func TestNoDeleteFromIncompleteRead(t *testing.T) {
	const secret, instance = "6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d11", "0a1b2c3d-0000-4000-8000-000000000001"
	gap := func(k completeness.Kind) completeness.Gaps { return completeness.Gaps{{Kind: k, Detail: string(k)}} }
	undetermined := func(why string) nova.ExistenceProof {
		return nova.ExistenceProof{State: nova.ServerUndetermined, Reason: why}
	}
	for _, c := range []struct {
		name     string
		complete bool // the server list is every project's, every cell up
		serverGs completeness.Gaps
		blocked  completeness.Gaps
		nova     nova.ExistenceProof
		kind     OrphanKind // the audit's word
		deletes  int
	}{
		{"down cell below 2.69: its servers missing from the list", false, gap(completeness.BelowCellDownSupport), gap(completeness.CellDown),
			undetermined("a cell down"), OrphanUndetermined, 0},
		{"down cell at 2.69: partial records", false, gap(completeness.CellDown), gap(completeness.CellDown),
			undetermined("a cell down"), OrphanUndetermined, 0},
		{"narrow scope: the token's own project (the instance lives elsewhere)", false, gap(completeness.Scope), nil,
			nova.ExistenceProof{State: nova.ServerExists, Status: "ACTIVE", ProjectID: "tenant"}, OrphanUndetermined, 0},
		{"secret in Nova's service project, run with Nova's service credentials (not admin)", false, gap(completeness.Scope), gap(completeness.Scope),
			undetermined("not admin"), OrphanUndetermined, 0},
		{"the GET failed (503 after retries)", true, nil, nil,
			undetermined("GET failed: 503"), OrphanGone, 0},
		{"the service list refused (403)", true, nil, gap(completeness.Forbidden),
			undetermined("403"), OrphanGone, 0},
		{"Nova answers for the server: it exists after all", true, nil, nil,
			nova.ExistenceProof{State: nova.ServerExists, Status: "SHUTOFF", ProjectID: "p2"}, OrphanGone, 0},
		{"complete list, admin, every cell up, 404: the one delete", true, nil, nil,
			nova.ExistenceProof{State: nova.ServerGone, Reason: "404"}, OrphanGone, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := baseFacts()
			f.CompleteServers, f.ServerGaps = c.complete, c.serverGs
			f.Secrets.Add(Secret{ID: secret, InstanceID: instance, ProjectID: "service", CreatorID: "nova", Created: now})
			r := Audit(f, now)
			if len(r.Orphans) != 1 || r.Orphans[0].Kind != c.kind {
				t.Fatalf("orphans %+v", r.Orphans)
			}
			if c.kind == OrphanUndetermined && (r.Summary.Orphans != 0 || r.Summary.Undetermined != 1) {
				t.Errorf("summary %+v", r.Summary)
			}
			proof := ServerProof{Endpoint: "https://nova/v2.1", Blocked: c.blocked, Servers: map[string]nova.ExistenceProof{instance: c.nova}}
			p := NewCleanupPlan(r, Origin{SecretsURL: "https://kms/v1/secrets/"}, proof, now)
			var b strings.Builder
			if err := p.Script(&b, "the cleanup plan"); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(b.String(), "#!/bin/sh\nset -eu\n# the cleanup plan, 2026-11-29T12:00:00Z. Review before running.\n") {
				t.Errorf("header does not say what made the plan, and when:\n%s", b.String())
			}
			if p.Deletes() != c.deletes || strings.Count(b.String(), "secret delete") != c.deletes {
				t.Errorf("%d delete(s), want %d:\n%s", p.Deletes(), c.deletes, b.String())
			}
			for _, g := range c.blocked {
				if !strings.Contains(b.String(), "# NOT PROVEN: "+g.String()) {
					t.Errorf("header does not say %q:\n%s", g, b.String())
				}
			}
			if !strings.Contains(b.String(), ProofMethod) {
				t.Errorf("header does not say how an instance is proven gone:\n%s", b.String())
			}
		})
	}
}

// A secret whose instance Nova was never asked about (a plan built from
// a proof that lacks it) is undetermined, never deleted.
func TestCleanupPlanUnaskedIsKept(t *testing.T) {
	const secret, instance = "6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d11", "0a1b2c3d-0000-4000-8000-000000000001"
	r := Result{Orphans: []Orphan{{Secret: Secret{ID: secret, InstanceID: instance, ProjectID: "p1"}, Kind: OrphanGone}}}
	p := NewCleanupPlan(r, Origin{SecretsURL: "https://kms/v1/secrets/"}, ServerProof{}, now)
	if p.Deletes() != 0 || p.Proof.Undetermined != 1 || p.Steps[0].Existence != nova.ServerUndetermined {
		t.Errorf("%+v", p)
	}
}
