//go:build integration

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"

	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/devcloudtest"
	"github.com/vtpmctl/vtpmctl/openstack/barbican"
)

// TestIntegrationSecretsProtect boots a real vTPM guest (Nova creates its
// secret as demo), and where the key manager has consumers (API 1.1):
// protect registers nova/instance/<server> once (a rerun writes nothing),
// the audit lists it protected, a delete asking for 1.2 without force is
// refused by Barbican where the API is 1.2, and Nova's own server delete
// ends in ERROR while the consumer is there where the cloud's
// python-barbicanclient is 5.5+ (it refuses a secret with consumers).
// Where the API is 1.0: the one line, exit 1.
func TestIntegrationSecretsProtect(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	imageClient, acompute, dcompute := testClients(t)
	admin := devcloudtest.Connect(t, "devcloud-admin")
	akm, err := admin.KeyManager()
	if err != nil {
		t.Fatal(err)
	}
	api, err := barbican.DetectAPI(ctx, akm)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("release %s: key-manager API %s (consumers %v, delete refused at 1.2 %v)", devcloudtest.Release(), api, api.HasConsumers(), api.RefusesDelete())

	var only []string // this test's server only: never another test's guest
	protect := func(dry bool) (runResult, vtpmsecret.ProtectResult) {
		r := h.run(func(streams *IOStreams) error {
			return runSecretsProtect(ctx, &secretsProtectOptions{DryRun: dry, Servers: only, secretsAuditOptions: secretsAuditOptions{IO: streams, Global: h.global("devcloud-admin"),
				Projects: []string{"demo"}, Concurrency: 4, ServiceProject: "service"}})
		})
		var out vtpmsecret.ProtectResult
		if r.stdout != "" {
			if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
				t.Fatalf("protect JSON: %v\n%s\n%s", err, r.stdout, r.stderr)
			}
		}
		return r, out
	}
	if !api.HasConsumers() {
		r, _ := protect(false)
		if r.code != 1 || !strings.Contains(r.stderr, vtpmsecret.ConsumersUnavailable(api)) || len(r.writes) != 0 {
			t.Fatalf("exit %d, writes %v\n%s", r.code, r.writes, r.stderr)
		}
		return
	}

	imgID := devcloudtest.CreateImage(t, imageClient, devcloudtest.Unique("sp-img"), nil)
	flvID := devcloudtest.CreateFlavor(t, acompute, devcloudtest.Unique("sp-flv"), map[string]string{"hw:tpm_version": "2.0"})
	srv, err := servers.Create(ctx, dcompute, servers.CreateOpts{Name: devcloudtest.Unique("sp"), ImageRef: imgID, FlavorRef: flvID,
		Networks: "none", AvailabilityZone: "libvirt"}, nil).Extract()
	if err != nil {
		t.Fatal(err)
	}
	only = []string{srv.ID}
	demo := devcloudtest.Connect(t, "devcloud-demo")
	dkm, _ := demo.KeyManager()
	consumer := vtpmsecret.NovaConsumer(srv.ID)
	var secretID string
	t.Cleanup(func() {
		// the consumer first: Nova's own delete of the secret is refused while it is there
		if secretID != "" {
			barbican.RemoveConsumer(context.Background(), dkm, secretID, consumer)
		}
		deleteAndWait(dcompute, srv.ID)
	})
	waitActive(t, dcompute, srv.ID)

	mine := func(out vtpmsecret.ProtectResult) vtpmsecret.ProtectAction {
		for _, a := range out.Secrets {
			if a.ServerID == srv.ID {
				return a
			}
		}
		t.Fatalf("server %s not in %+v", srv.ID, out.Secrets)
		return vtpmsecret.ProtectAction{}
	}
	r, out := protect(true)
	if a := mine(out); r.code != 0 || a.Action != vtpmsecret.ActWouldRegister || len(r.writes) != 0 || len(out.Secrets) != 1 {
		t.Fatalf("dry run: exit %d, %+v, writes %v\n%s", r.code, a, r.writes, r.stderr)
	}
	r, out = protect(false)
	a := mine(out)
	if r.code != 0 || a.Action != vtpmsecret.ActRegistered || len(r.writes) != 1 {
		t.Fatalf("protect: exit %d, %+v, writes %v\n%s", r.code, a, r.writes, r.stderr)
	}
	secretID = a.SecretID
	r, out = protect(false)
	if a := mine(out); r.code != 0 || a.Action != vtpmsecret.ActAlready || len(r.writes) != 0 {
		t.Fatalf("rerun: exit %d, %+v, writes %v", r.code, a, r.writes)
	}

	r = h.run(func(streams *IOStreams) error {
		return runSecretsAudit(ctx, &secretsAuditOptions{IO: streams, Global: h.global("devcloud-admin"), Projects: []string{"demo"}, Concurrency: 4, ServiceProject: "service"})
	})
	var audit vtpmsecret.Result
	if err := json.Unmarshal([]byte(r.stdout), &audit); err != nil {
		t.Fatalf("audit JSON: %v\n%s", err, r.stderr)
	}
	found := false
	for _, g := range audit.Guests {
		if g.ServerID == srv.ID {
			found = true
			if g.Protection != vtpmsecret.Protected || len(g.Consumers) != 1 || g.Consumers[0] != consumer {
				t.Errorf("audit: %s %+v", g.Protection, g.Consumers)
			}
		}
	}
	if !found || audit.Summary.Consumers == nil || audit.Summary.Consumers.Protected < 1 || audit.KeyManagerAPI != api.String() {
		t.Errorf("audit summary %+v api %q", audit.Summary, audit.KeyManagerAPI)
	}

	// Barbican's refusal: a delete asking for 1.2, without force.
	if api.RefusesDelete() {
		err := barbican.DeleteSecret(ctx, dkm, secretID, barbican.DeleteRefusalMicroversion, false)
		if !gophercloud.ResponseCodeIs(err, 400) || !strings.Contains(err.Error(), "Secret cannot be deleted as it has consumers.") {
			t.Fatalf("a delete at 1.2 without force: %v", err)
		}
		t.Logf("Barbican refused the delete at 1.2: %v", err)
	} else {
		t.Logf("key-manager API %s: Barbican itself deletes a secret with consumers; only the openstack client refuses", api)
	}

	// Nova's own delete while the consumer is there: with the cloud's
	// python-barbicanclient 5.5+ the server goes to ERROR (the secret
	// stays), as secrets protect --help says; 5.4 (Zed's) deletes.
	client := packageVersion(t, "python3-barbicanclient")
	want := "gone"
	if versionAtLeast(client, 5, 5) {
		want = "ERROR"
	}
	if err := servers.Delete(ctx, dcompute, srv.ID).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	status, fault := "", ""
	for i := 0; i < 120 && status != "ERROR"; i++ {
		s, err := servers.Get(ctx, dcompute, srv.ID).Extract()
		if gophercloud.ResponseCodeIs(err, 404) {
			status = "gone"
			break
		}
		if err == nil {
			status, fault = s.Status, s.Fault.Message
		}
		time.Sleep(time.Second)
	}
	t.Logf("release %s, python3-barbicanclient %s: Nova's delete of a protected guest: %s %q", devcloudtest.Release(), client, status, fault)
	if status != want {
		t.Errorf("Nova's delete of a protected guest ended %s, want %s (python3-barbicanclient %s): secrets protect --help is wrong here", status, want, client)
	}
	if status != "ERROR" {
		return
	}
	// What secrets protect tells the operator to do: unprotect the guest,
	// then its delete goes through (the secret with it).
	unprotect := func() (runResult, vtpmsecret.UnprotectResult) {
		r := h.run(func(streams *IOStreams) error {
			return runSecretsUnprotect(ctx, &secretsProtectOptions{Servers: only, secretsAuditOptions: secretsAuditOptions{IO: streams, Global: h.global("devcloud-admin"),
				Projects: []string{"demo"}, Concurrency: 4, ServiceProject: "service"}})
		})
		var out vtpmsecret.UnprotectResult
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("unprotect JSON: %v\n%s\n%s", err, r.stdout, r.stderr)
		}
		return r, out
	}
	r2, un := unprotect()
	if r2.code != 0 || un.Summary.Removed != 1 || len(r2.writes) != 1 {
		t.Fatalf("unprotect: exit %d, %+v, writes %v\n%s", r2.code, un.Summary, r2.writes, r2.stderr)
	}
	if r2, un = unprotect(); r2.code != 0 || un.Summary.Removed != 0 || len(r2.writes) != 0 {
		t.Fatalf("unprotect rerun: exit %d, %+v, writes %v", r2.code, un.Summary, r2.writes)
	}
	secretID = "" // no consumer left for the cleanup to remove
	deleteAndWait(dcompute, srv.ID)
	if _, err := servers.Get(ctx, dcompute, srv.ID).Extract(); !gophercloud.ResponseCodeIs(err, 404) {
		t.Fatalf("after secrets unprotect, the guest's delete did not go through: %v", err)
	}
}

// packageVersion reads a Debian package's version where the cloud runs
// (its chroot for a newer release).
func packageVersion(t *testing.T, pkg string) string {
	b, err := os.ReadFile(devcloudtest.InRoot("/var/lib/dpkg/status"))
	if err != nil {
		t.Fatal(err)
	}
	for _, stanza := range strings.Split(string(b), "\n\n") {
		if strings.HasPrefix(stanza, "Package: "+pkg+"\n") {
			for _, l := range strings.Split(stanza, "\n") {
				if v, ok := strings.CutPrefix(l, "Version: "); ok {
					return v
				}
			}
		}
	}
	t.Fatalf("%s is not installed", pkg)
	return ""
}

// versionAtLeast compares a Debian version's upstream major.minor.
func versionAtLeast(v string, major, minor int) bool {
	if _, after, ok := strings.Cut(v, ":"); ok {
		v = after
	}
	var a, b int
	fmt.Sscanf(v, "%d.%d", &a, &b)
	return a > major || a == major && b >= minor
}
