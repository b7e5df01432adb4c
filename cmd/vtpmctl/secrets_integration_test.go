//go:build integration

package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	"github.com/gophercloud/gophercloud/v2/openstack/keymanager/v1/acls"
	"github.com/gophercloud/gophercloud/v2/openstack/keymanager/v1/secrets"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/devcloudtest"
	"github.com/vtpmctl/vtpmctl/internal/parallel"
)

type auditOut struct {
	Summary vtpmsecret.Summary       `json:"summary"`
	Guests  []vtpmsecret.GuestResult `json:"guests"`
	Orphans []vtpmsecret.Orphan      `json:"orphans"`
}

// TestIntegrationSecretsAudit boots a real vTPM guest (Nova creates the
// real Barbican secret), audits it as passing, then breaks it for real,
// one way at a time, and expects each break under its check ID. No
// request for a payload may ever leave vtpmctl.
func TestIntegrationSecretsAudit(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	admin := devcloudtest.Connect(t, "devcloud-admin")
	ks, _ := admin.Identity()
	demoID := projectID(t, ks, "demo")
	roleIDs := map[string]string{}
	pages, _ := roles.List(ks, roles.ListOpts{}).AllPages(ctx)
	rs, _ := roles.ExtractRoles(pages)
	for _, r := range rs {
		roleIDs[r.Name] = r.ID
	}

	// A user of its own, so disabling it harms no other test.
	name := devcloudtest.Unique("vtpm-owner")
	enabled := true
	u, err := users.Create(ctx, ks, users.CreateOpts{Name: name, Password: "pw-" + name, DomainID: "default", DefaultProjectID: demoID, Enabled: &enabled}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { users.Delete(context.Background(), ks, u.ID) })
	grant := func(role string) {
		if err := roles.Assign(ctx, ks, roleIDs[role], roles.AssignOpts{UserID: u.ID, ProjectID: demoID}).ExtractErr(); err != nil {
			t.Fatal(err)
		}
	}
	grant("member")
	grant("creator")
	pc, err := openstack.AuthenticatedClient(ctx, gophercloud.AuthOptions{IdentityEndpoint: "http://127.0.0.1:5000/v3", Username: name, Password: "pw-" + name,
		DomainName: "Default", Scope: &gophercloud.AuthScope{ProjectID: demoID}})
	if err != nil {
		t.Fatal(err)
	}
	ucompute, _ := openstack.NewComputeV2(pc, gophercloud.EndpointOpts{Region: "RegionOne"})
	ucompute.Microversion = "2.37"
	ukm, _ := openstack.NewKeyManagerV1(pc, gophercloud.EndpointOpts{Region: "RegionOne"})

	imageClient, _ := admin.Image()
	acompute, _ := admin.Compute()
	imgID := devcloudtest.CreateImage(t, imageClient, devcloudtest.Unique("sa-img"), nil)
	flvID := devcloudtest.CreateFlavor(t, acompute, devcloudtest.Unique("sa-flv"), map[string]string{"hw:tpm_version": "2.0"})
	srv, err := servers.Create(ctx, ucompute, servers.CreateOpts{Name: devcloudtest.Unique("sa"), ImageRef: imgID, FlavorRef: flvID,
		Networks: "none", AvailabilityZone: "libvirt"}, nil).Extract()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteAndWait(ucompute, srv.ID) }) // the owner: an admin's delete cannot remove the secret
	waitActive(t, ucompute, srv.ID)

	audit := func(orphans bool) (runResult, auditOut) {
		r := h.run(func(streams *IOStreams) error {
			return runSecretsAudit(ctx, &secretsAuditOptions{IO: streams, Global: h.global("devcloud-admin"), Projects: []string{"demo"},
				IncludeOrphans: orphans, Concurrency: 4, ServiceProject: "service"})
		})
		if len(r.requests) == 0 {
			t.Fatal("the request counter saw nothing")
		}
		for _, p := range r.requests {
			if strings.Contains(p, "/payload") {
				t.Fatalf("a payload request left vtpmctl: %s", p)
			}
		}
		var out auditOut
		if r.code != 2 {
			if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
				t.Fatalf("audit JSON: %v\n%s\n%s", err, r.stdout, r.stderr)
			}
		}
		return r, out
	}
	guest := func(out auditOut) vtpmsecret.GuestResult {
		for _, g := range out.Guests {
			if g.ServerID == srv.ID {
				return g
			}
		}
		t.Fatalf("guest %s not in the audit: %+v", srv.ID, out.Guests)
		return vtpmsecret.GuestResult{}
	}
	expect := func(step string, out auditOut, check vtpmsecret.CheckID, status, msg string) {
		t.Helper()
		for _, f := range guest(out).Findings {
			if f.Check == check {
				if string(f.Status) != status || !strings.Contains(f.Message, msg) {
					t.Errorf("%s: %s %s %q, want %s containing %q", step, check, f.Status, f.Message, status, msg)
				}
				return
			}
		}
		t.Errorf("%s: no %s finding in %+v", step, check, guest(out).Findings)
	}

	// 0. Healthy.
	r, out := audit(false)
	if r.code != 0 {
		t.Fatalf("healthy guest: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, f := range guest(out).Findings {
		if f.Status != "pass" {
			t.Errorf("healthy: %s %s %s", f.Check, f.Status, f.Message)
		}
	}
	secretID := guest(out).SecretID
	if g := guest(out); g.UserID != u.ID || g.Mode != "user" || !contains(g.Cannot, "evacuate") {
		t.Errorf("guest facts: %+v", g)
	}

	// 1. ACL set private by the owner.
	pf := false
	if _, err := acls.SetSecretACL(ctx, ukm, secretID, acls.SetOpts{{Type: "read", ProjectAccess: &pf}}).Extract(); err != nil {
		t.Fatal(err)
	}
	_, out = audit(false)
	expect("private ACL", out, "SECRET-ACL", "warn", "project-access=false")
	acls.DeleteSecretACL(ctx, ukm, secretID)

	// 2. A duplicate secret for the same instance.
	dup := storeSecret(t, ukm, vtpmsecret.NamePrefix+srv.ID)
	r, out = audit(true)
	expect("duplicate", out, "SECRET-UNIQUE", "fail", "2 secrets for this guest")
	if r.code != 1 || !hasOrphan(out, dup, "duplicate") {
		t.Errorf("duplicate: exit %d, orphans %+v", r.code, out.Orphans)
	}
	secrets.Delete(ctx, ukm, dup)

	// 3. An orphan: a vTPM secret of an instance that does not exist.
	orphanID := storeSecret(t, ukm, vtpmsecret.NamePrefix+"00000000-dead-4bad-8bad-000000000000")
	r, out = audit(true)
	if r.code != 1 || !hasOrphan(out, orphanID, "no longer exists") {
		t.Errorf("orphan: exit %d, orphans %+v", r.code, out.Orphans)
	}
	plan := h.run(func(streams *IOStreams) error {
		return runSecretsAudit(ctx, &secretsAuditOptions{IO: streams, Global: h.global("devcloud-admin"), Projects: []string{"demo"}, CleanupPlan: true, Concurrency: 4, ServiceProject: "service"})
	})
	if !strings.Contains(plan.stdout, "secret delete http://127.0.0.1:9311/v1/secrets/"+orphanID) || len(plan.writes) != 0 {
		t.Errorf("cleanup plan lacks the delete line (or wrote something): %s %v", plan.stdout, plan.writes)
	}
	secrets.Delete(ctx, ukm, orphanID)

	// 3b. A vTPM-named secret of a server that exists without a vTPM: never
	// counted as an orphan, never in the cleanup plan. Where the server
	// list shows the image properties Nova stored at boot (2.98, 2025.1+)
	// the server certainly has none: shown as a live server's secret.
	// Before, "no vTPM" is only what the image says now (it may have been
	// untagged since boot): the secret makes the server a guest
	// (evidence secret, unconfirmed image_now).
	plainFlv := devcloudtest.CreateFlavor(t, acompute, devcloudtest.Unique("sa-plain"), nil)
	plain, err := servers.Create(ctx, ucompute, servers.CreateOpts{Name: devcloudtest.Unique("sa-plain"), ImageRef: imgID, FlavorRef: plainFlv,
		Networks: "none", AvailabilityZone: "fake"}, nil).Extract()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteAndWait(ucompute, plain.ID) })
	liveID := storeSecret(t, ukm, vtpmsecret.NamePrefix+plain.ID)
	r, out = audit(true)
	atBoot := !cloudRelease(t).MaxMicroversion().Less(nova.Microversion{Major: 2, Minor: 98})
	live, promoted := false, false
	for _, o := range out.Orphans {
		live = live || (o.ID == liveID && o.Live)
	}
	for _, g := range out.Guests {
		promoted = promoted || g.ServerID == plain.ID && g.Evidence == nova.EvidenceSecret && g.Unconfirmed == nova.UnconfirmedImageNow && g.EvidenceReason != ""
	}
	if live != atBoot || promoted == atBoot || out.Summary.Orphans != 0 {
		t.Errorf("a plain server's vTPM-named secret (boot-time properties shown: %v): live orphan %v, guest by its secret %v; %+v %+v", atBoot, live, promoted, out.Orphans, out.Summary)
	}
	plan = h.run(func(streams *IOStreams) error {
		return runSecretsAudit(ctx, &secretsAuditOptions{IO: streams, Global: h.global("devcloud-admin"), Projects: []string{"demo"}, CleanupPlan: true, Concurrency: 4, ServiceProject: "service"})
	})
	if strings.Contains(plan.stdout, "secret delete http://127.0.0.1:9311/v1/secrets/"+liveID) || atBoot && !strings.Contains(plan.stdout, "not deleted, its server exists") {
		t.Errorf("cleanup plan for a live server's secret:\n%s", plan.stdout)
	}
	secrets.Delete(ctx, ukm, liveID)

	// 4. The owner loses every role in the project.
	for _, role := range []string{"member", "creator"} {
		roles.Unassign(ctx, ks, roleIDs[role], roles.UnassignOpts{UserID: u.ID, ProjectID: demoID})
	}
	r, out = audit(false)
	expect("no role", out, "OWNER-VALID", "fail", "has no role in project")
	if r.code != 1 {
		t.Errorf("no role: exit %d", r.code)
	}
	grant("member")
	grant("creator")

	// 5. The owner is disabled.
	disabled := false
	if _, err := users.Update(ctx, ks, u.ID, users.UpdateOpts{Enabled: &disabled}).Extract(); err != nil {
		t.Fatal(err)
	}
	_, out = audit(false)
	expect("disabled owner", out, "OWNER-VALID", "fail", "is disabled")
	users.Update(ctx, ks, u.ID, users.UpdateOpts{Enabled: &enabled})

	// 6. The secret is deleted behind Nova's back.
	if err := secrets.Delete(ctx, ukm, secretID).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	r, out = audit(false)
	expect("deleted secret", out, "SECRET-EXISTS", "fail", "will not start again")
	if r.code != 1 || out.Summary.Failed < 1 {
		t.Errorf("deleted secret: exit %d summary %+v", r.code, out.Summary)
	}
}

// TestIntegrationSecretsNotAuditable: a member-only user cannot list
// Barbican secrets with Zed's policy; that is reported, not skipped.
func TestIntegrationSecretsNotAuditable(t *testing.T) {
	h := newHarness(t)
	r := h.run(func(streams *IOStreams) error {
		return runSecretsAudit(context.Background(), &secretsAuditOptions{IO: streams, Global: h.global("devcloud-demo2"), Concurrency: 2, ServiceProject: "service"})
	})
	var out auditOut
	json.Unmarshal([]byte(r.stdout), &out)
	if cloudRelease(t) >= nova.Gazpacho {
		// Barbican 23 with oslo.policy 6 enforces the new defaults: a
		// member (reader) lists the project's secrets (seen live).
		if r.code != 0 || out.Summary.NotAuditable != 0 {
			t.Errorf("a member on 2026.1+ audits her project: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		return
	}
	if r.code != 1 || out.Summary.NotAuditable != 1 || !strings.Contains(r.stdout, "Barbican refuses to list its secrets (403)") {
		t.Errorf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

func storeSecret(t *testing.T, km *gophercloud.ServiceClient, name string) string {
	t.Helper()
	s, err := secrets.Create(context.Background(), km, secrets.CreateOpts{Name: name, Payload: "not-a-real-vtpm-passphrase",
		PayloadContentType: "text/plain", SecretType: secrets.PassphraseSecret}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(s.SecretRef, "/")
	return parts[len(parts)-1]
}

func hasOrphan(out auditOut, id, reason string) bool {
	for _, o := range out.Orphans {
		if o.ID == id && strings.Contains(o.Reason, reason) {
			return true
		}
	}
	return false
}

func projectID(t *testing.T, ks *gophercloud.ServiceClient, name string) string {
	var id string
	projects.List(ks, projects.ListOpts{Name: name}).EachPage(context.Background(), func(_ context.Context, p pagination.Page) (bool, error) {
		ps, _ := projects.ExtractProjects(p)
		if len(ps) > 0 {
			id = ps[0].ID
		}
		return false, nil
	})
	if id == "" {
		t.Fatalf("no project %s", name)
	}
	return id
}

func contains(l []string, v string) bool {
	for _, x := range l {
		if x == v {
			return true
		}
	}
	return false
}

// TestIntegrationSecretsAuditModes: on 2026.1+, where Nova really puts a
// host- and a deployment-mode guest's secret, and who owns it: the audit
// must find each (host mode: the owner's project, created by the owner;
// deployment mode: the service project, created by Nova's service user,
// which the audit finds by itself and says how).
func TestIntegrationSecretsAuditModes(t *testing.T) {
	since(t, nova.Gazpacho)
	h := newHarness(t)
	ctx := context.Background()
	imageClient, acompute, dcompute := testClients(t)
	img := devcloudtest.CreateImage(t, imageClient, devcloudtest.Unique("sam-img"), nil)
	ids := map[string]string{}
	for _, m := range []string{"host", "deployment"} {
		ids[m] = bootModeGuest(t, acompute, dcompute, img, "sam", m)
	}
	r := h.run(func(streams *IOStreams) error {
		return runSecretsAudit(ctx, &secretsAuditOptions{IO: streams, Global: h.global("devcloud-admin"), AllProjects: true, Concurrency: 4, ServiceProject: "service"})
	})
	var out struct {
		auditOut
		ServiceUser *vtpmsecret.ServiceUser `json:"nova_service_user"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("exit %d: %v\n%s", r.code, err, r.stderr)
	}
	if out.ServiceUser == nil || out.ServiceUser.ID == "" || !strings.Contains(out.ServiceUser.Evidence, `named "nova"`) {
		t.Fatalf("nova_service_user: %+v", out.ServiceUser)
	}
	for m, id := range ids {
		var g *vtpmsecret.GuestResult
		for i := range out.Guests {
			if out.Guests[i].ServerID == id {
				g = &out.Guests[i]
			}
		}
		if g == nil {
			t.Fatalf("%s-mode guest not audited:\n%s", m, r.stdout)
		}
		want := map[vtpmsecret.CheckID]string{vtpmsecret.CheckSecretExists: "pass", vtpmsecret.CheckSecretOwner: "pass"}
		for _, f := range g.Findings {
			if w, ok := want[f.Check]; ok && string(f.Status) != w {
				t.Errorf("%s mode %s: %s %s", m, f.Check, f.Status, f.Message)
			}
			if f.Check == vtpmsecret.CheckSecretOwner {
				t.Logf("%s mode: %s", m, f.Message)
			}
		}
		if string(g.Mode) != m {
			t.Errorf("%s-mode guest audited as %q", m, g.Mode)
		}
	}
	cleanupAsNova(t, h, ids["deployment"])
}

// cleanupAsNova is the cleanup plan run with Nova's own service
// credentials, in their default scope (the service project): where
// 2026.1+ keeps every deployment-mode guest's secret. Seen live on
// 2026.2 before the fix: "# instance … gone" and a delete line for the
// ACTIVE guest's secret, which the admin's --all-projects audit called ok.
// Now the secret's instance is undetermined from the service project's
// server list, Nova answers for it by UUID, and the plan keeps it.
func cleanupAsNova(t *testing.T, h *harness, guest string) {
	t.Helper()
	r := h.run(func(streams *IOStreams) error {
		return runSecretsAudit(context.Background(), &secretsAuditOptions{IO: streams, Global: h.global("devcloud-nova"), CleanupPlan: true, Concurrency: 4, ServiceProject: "service"})
	})
	if n := strings.Count(r.stdout, "secret delete"); n != 0 || !strings.Contains(r.stderr, "cleanup plan: 0 delete command(s)") {
		t.Fatalf("cleanup plan as Nova's service user: %d delete line(s), exit %d\n%s\n%s", n, r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "not deleted, its server exists") || !strings.Contains(r.stdout, "instance "+guest) {
		t.Errorf("the plan does not say the guest's server exists:\n%s", r.stdout)
	}
	t.Logf("cleanup plan as Nova's service user (exit %d):\n%s", r.code, r.stdout)
}

// TestIntegrationSecretsPaging: 152 vTPM secrets and 38 others in one
// project. Barbican before the 2025 paging fix (Zed … 2025.1) answers
// next: …/v1/secrets?limit=100&offset=100, the name filter dropped; seen
// live on Zed, following it counted 172 secrets, 20 of them twice. Every
// release must count 152 secrets, each once, all orphans (no servers).
func TestIntegrationSecretsPaging(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	admin := devcloudtest.Connect(t, "devcloud-admin")
	ks, _ := admin.Identity()

	// A project of its own: no other test's secrets or servers in it.
	name := devcloudtest.Unique("sa-paging")
	p, err := projects.Create(ctx, ks, projects.CreateOpts{Name: name, DomainID: "default"}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { projects.Delete(context.Background(), ks, p.ID) })
	var adminRole, adminUser string
	pages, _ := roles.List(ks, roles.ListOpts{Name: "admin"}).AllPages(ctx)
	if rs, _ := roles.ExtractRoles(pages); len(rs) == 1 {
		adminRole = rs[0].ID
	}
	pages, _ = users.List(ks, users.ListOpts{Name: "admin", DomainID: "default"}).AllPages(ctx)
	if us, _ := users.ExtractUsers(pages); len(us) == 1 {
		adminUser = us[0].ID
	}
	if err := roles.Assign(ctx, ks, adminRole, roles.AssignOpts{UserID: adminUser, ProjectID: p.ID}).ExtractErr(); err != nil {
		t.Fatalf("admin role in %s: %v", name, err)
	}
	ps, err := admin.ForProject(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	km, err := ps.KeyManager()
	if err != nil {
		t.Fatal(err)
	}

	// One other secret in five, created in between: on an old Barbican the
	// unfiltered second page then repeats vTPM secrets of the first.
	const vtpm, others = 152, 38
	ids := make([]string, vtpm+others)
	names := make([]string, len(ids))
	for i, nv, no := 0, 0, 0; i < len(ids); i++ {
		if i%5 == 4 && no < others {
			names[i], no = fmt.Sprintf("sa-paging-other-%d", no), no+1
		} else {
			names[i], nv = vtpmsecret.NamePrefix+randomUUID(t), nv+1
		}
	}
	// Bounded concurrency: a create is ~20 ms; ordered enough to interleave.
	errs := parallel.Do(ctx, len(ids), 8, func(ctx context.Context, i int) error {
		s, err := secrets.Create(ctx, km, secrets.CreateOpts{Name: names[i], Payload: "not-a-real-vtpm-passphrase",
			PayloadContentType: "text/plain", SecretType: secrets.PassphraseSecret}).Extract()
		if err == nil {
			ids[i] = s.SecretRef[strings.LastIndex(s.SecretRef, "/")+1:]
		}
		return err
	})
	t.Cleanup(func() {
		parallel.Do(context.Background(), len(ids), 8, func(ctx context.Context, i int) error {
			if ids[i] != "" {
				secrets.Delete(ctx, km, ids[i])
			}
			return nil
		})
	})
	want := map[string]bool{}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("creating secret %d: %v", i, err)
		}
		if strings.HasPrefix(names[i], vtpmsecret.NamePrefix) {
			want[ids[i]] = true
		}
	}

	r := h.run(func(streams *IOStreams) error {
		return runSecretsAudit(ctx, &secretsAuditOptions{IO: streams, Global: h.global("devcloud-admin"), Projects: []string{name},
			IncludeOrphans: true, Concurrency: 4, ServiceProject: "service"})
	})
	var out auditOut
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("exit %d: %v\n%s", r.code, err, r.stderr)
	}
	seen := map[string]bool{}
	for _, o := range out.Orphans {
		if seen[o.ID] || !want[o.ID] {
			t.Errorf("orphan %s listed twice or not one of the vTPM secrets created", o.ID)
		}
		seen[o.ID] = true
	}
	if out.Summary.Secrets != vtpm || out.Summary.Orphans != vtpm || len(seen) != vtpm || r.code != 1 {
		t.Errorf("exit %d, summary %+v, %d distinct orphans; want %d secrets, %d orphans\n%s", r.code, out.Summary, len(seen), vtpm, vtpm, r.stderr)
	}
	lists := 0
	for _, req := range r.requests { // "GET …/v1/secrets": the path, query apart
		if strings.HasPrefix(req, "GET ") && strings.HasSuffix(req, "/v1/secrets") {
			lists++
		}
	}
	if lists != 2 {
		t.Errorf("%d secret list requests, want 2 (ceil(152/100))", lists)
	}
}

func randomUUID(t *testing.T) string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
