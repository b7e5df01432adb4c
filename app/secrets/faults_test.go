package secrets

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
)

// TestProjectNotAuditable: each way a project's secrets cannot be listed
// makes the project not auditable, with its reason; the audit goes on.
func TestProjectNotAuditable(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		kmErr  error
		kind   vtpmsecret.NotAuditableKind
		why    string
	}{
		{"no token", 0, errors.New("connection refused"), vtpmsecret.TokenFailed, "cannot get a token for the project: connection refused"},
		{"list refused", 403, nil, vtpmsecret.ListRefused, "Barbican refuses to list its secrets (403)"},
		{"list failed", 404, nil, vtpmsecret.ListFailed, "listing secrets:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fc := newFakeCloud(t)
			fc.addSecrets("p1", 1, 0, 2, 0, func(int) string { return "alice" })
			fc.listStatus = map[string]int{"p1": c.status}
			src := fc.sources("p1", "p2")
			src.Identity, src.ReadACLs = nil, false
			if c.kmErr != nil {
				km := src.KeyManager
				src.KeyManager = func(ctx context.Context, p string) (*gophercloud.ServiceClient, error) {
					if p == "p1" {
						return nil, c.kmErr
					}
					return km(ctx, p)
				}
			}
			f, err := Gather(context.Background(), src)
			if err != nil {
				t.Fatal(err)
			}
			if why := f.NotAuditable["p1"]; why.Kind != c.kind || !strings.Contains(why.String(), c.why) || !f.Audited["p2"] || f.Audited["p1"] {
				t.Errorf("not auditable %v, audited %v", f.NotAuditable, f.Audited)
			}
		})
	}
}

// TestSecretRefNotASecret: a vTPM-named secret whose secret_ref is no
// secret's URL is named, never requested, and its project still audited.
func TestSecretRefNotASecret(t *testing.T) {
	fc := newFakeCloud(t)
	fc.secrets["p1"] = []fakeSecret{{id: fakeUUID(1, 1), name: vtpmsecret.NamePrefix + fakeUUID(9, 1), creator: "alice", ref: fc.URL + "/key-manager/v1/secrets/" + fakeUUID(1, 1) + "/payload"}}
	src := fc.sources("p1")
	src.Identity = nil
	f, err := Gather(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	if f.Secrets.Len() != 0 || len(f.SkippedSecrets) != 1 || !strings.Contains(f.SkippedSecrets[0], "not a secret's URL") || !f.Audited["p1"] || fc.count("acl") != 0 {
		t.Errorf("secrets %v, skipped %v, audited %v", f.Secrets, f.SkippedSecrets, f.Audited)
	}
}

// TestNovaNamedUsers: deployment-mode guests and no service user given:
// the Keystone users named "nova" are looked up, with one filtered list.
func TestNovaNamedUsers(t *testing.T) {
	fc := newFakeCloud(t)
	fc.users = map[string]fakeUser{"u-nova": {name: "nova", enabled: true}, "alice": {name: "alice", enabled: true}}
	src := fc.sources("svc")
	src.Inventory = &nova.Inventory{Guests: nova.NewGuestList([]vtpmsecret.Guest{{ServerID: fakeUUID(9, 0), ProjectID: "p1", UserID: "alice", Mode: nova.SecretDeployment}}...)}
	src.ServiceProject = "svc"
	f, err := Gather(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.NovaNamedUsers) != 1 || f.NovaNamedUsers[0] != "u-nova" || !f.Users["u-nova"].Exists {
		t.Errorf("nova-named %v, users %v", f.NovaNamedUsers, f.Users)
	}
	if su := vtpmsecret.Audit(f, now).ServiceUser; su == nil || su.ID != "u-nova" {
		t.Errorf("service user %+v", su)
	}
}
