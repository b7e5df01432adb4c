package vtpmsecret

import (
	"strings"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// TestCleanupPlanByKind: the plan acts on the orphan's kind, not on its
// reason's words: a deleted instance whose reason happens to start with
// "duplicate" is deleted; a duplicate is never, whatever its reason says.
func TestCleanupPlanByKind(t *testing.T) {
	const a, b, c = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222", "33333333-3333-4333-8333-333333333333"
	res := Result{Orphans: []Orphan{
		{Secret: Secret{ID: a, InstanceID: b, ProjectID: "p1"}, Kind: OrphanGone, Reason: "duplicate-looking reason"},
		{Secret: Secret{ID: b, InstanceID: c, ProjectID: "p1"}, Kind: OrphanDuplicate, Reason: "instance gone"},
		{Secret: Secret{ID: c, InstanceID: a, ProjectID: "p1"}, Kind: "", Reason: "instance " + a + " no longer exists"},
	}}
	p := NewCleanupPlan(res, Origin{SecretsURL: "https://kms/v1/secrets/"}, goneProof(b, c, a), time.Now())
	if len(p.Steps) != 2 || p.Steps[0].Action != CleanupDelete || p.Steps[1].Action != CleanupKeep || p.Steps[1].Command != "" || p.Deletes() != 1 {
		t.Fatalf("%+v", p.Steps)
	}
	if want := "openstack --os-project-id p1 secret delete https://kms/v1/secrets/" + a; p.Steps[0].Command != want {
		t.Errorf("command %q, want %q", p.Steps[0].Command, want)
	}
	var b2 strings.Builder
	if err := p.Script(&b2, "the cleanup plan"); err != nil || strings.Count(b2.String(), "secret delete") != 1 {
		t.Errorf("%v\n%s", err, b2.String())
	}
	if tb := p.Table(); len(tb.Rows) != 2 || tb.Rows[0].Get("kind") != string(OrphanGone) {
		t.Errorf("%+v", tb.Rows)
	}
}

// TestOrphanKinds: Audit types each orphan.
func TestOrphanKinds(t *testing.T) {
	f := baseFacts()
	s := f.Secrets.At(0)
	dup, gone := s, s
	dup.ID = "s2"
	gone.ID, gone.InstanceID = "s3", "srv-gone"
	f.Secrets.Add(dup, gone)
	kinds := map[string]OrphanKind{}
	for _, o := range Audit(f, now).Orphans {
		kinds[o.ID] = o.Kind
	}
	if kinds["s1"] != OrphanDuplicate || kinds["s2"] != OrphanDuplicate || kinds["s3"] != OrphanGone {
		t.Errorf("%v", kinds)
	}
}

// goneProof is Nova's word that each of ids is gone.
func goneProof(ids ...string) ServerProof {
	p := ServerProof{Servers: map[string]nova.ExistenceProof{}}
	for _, id := range ids {
		p.Servers[id] = nova.ExistenceProof{State: nova.ServerGone, Reason: "404"}
	}
	return p
}
