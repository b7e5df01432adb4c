//go:build integration

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"

	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/devcloudtest"
)

// TestIntegrationLiveMigration live-migrates vTPM guests between the
// release cloud's libvirt compute (host devcloud, "A") and a second one
// (devcloud-b, "B", from devcloud/second-compute.sh), for real:
//   - a host-mode guest goes to B with its TPM state: the same endorsement
//     key, and a marker written into a TPM NV index on A read back from B's
//     state (both opened offline with the key in each host's libvirt
//     secret; the encrypted files differ anyway, swtpm re-encrypts with a
//     fresh IV); then back to A (B reaches A's libvirtd through a relay),
//     where the same key and marker are read again;
//   - user- and deployment-mode guests are refused with Nova's text, which
//     must be what `vtpmctl check` lists for them;
//   - with B's provider lacking the HOST secret-security trait (which check
//     lists as required), Nova finds no valid host and the guest stays
//     ACTIVE on A.
func TestIntegrationLiveMigration(t *testing.T) {
	since(t, nova.Gazpacho)
	if !devcloudtest.HostBUp() {
		t.Skipf("the %s cloud has no second libvirt compute: bash devcloud/second-compute.sh %s up", devcloudtest.Release(), devcloudtest.Release())
	}
	start := time.Now()
	hostA, hostB := devcloudtest.HostA(t), devcloudtest.HostB(t)
	imageClient, acompute, _ := testClients(t)
	admin := devcloudtest.Connect(t, "devcloud-admin")
	boot, _ := admin.Compute()
	boot.Microversion = "2.74" // "host" in the request: no availability zone pins the guest to A's
	lm, _ := admin.Compute()
	lm.Microversion = "2.30" // a live migration's destination host
	placement, _ := admin.Placement()
	placement.Microversion = "1.18" // traits: 1.6

	// The image has no OS to answer an ACPI shutdown: os_shutdown_timeout=0
	// makes Nova's stop a power-off instead of a 60 s wait.
	imgName := devcloudtest.Unique("lm-img")
	img := devcloudtest.CreateImage(t, imageClient, imgName, map[string]string{"os_shutdown_timeout": "0"})
	modes := []nova.SecretMode{nova.SecretHost, nova.SecretUser, nova.SecretDeployment}
	flavorName, ids := map[nova.SecretMode]string{}, map[nova.SecretMode]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, m := range modes {
		flavorName[m] = devcloudtest.Unique("lm-" + string(m))
		fid := devcloudtest.CreateFlavor(t, acompute, flavorName[m], map[string]string{"hw:tpm_version": "2.0", "hw:tpm_model": "tpm-crb",
			"hw:tpm_secret_security": string(m)})
		wg.Add(1)
		go func(m nova.SecretMode) {
			defer wg.Done()
			s, err := servers.Create(context.Background(), boot, createOnHost{servers.CreateOpts{Name: devcloudtest.Unique("lm-" + string(m)),
				ImageRef: img, FlavorRef: fid, Networks: "none"}, hostA.Name}, nil).Extract()
			if err != nil {
				t.Errorf("boot %s mode on %s: %v", m, hostA.Name, err)
				return
			}
			mu.Lock()
			ids[m] = s.ID
			mu.Unlock()
		}(m)
	}
	wg.Wait()
	// Registered after the flavors and images, so it runs before theirs.
	t.Cleanup(func() {
		deleteAll(lm, ids)
		// a host-mode guest's secret stays where it has been
		hostA.ForgetVTPMSecrets(ids[nova.SecretHost])
		hostB.ForgetVTPMSecrets(ids[nova.SecretHost])
	})
	if t.Failed() {
		t.FailNow()
	}
	for _, m := range modes {
		waitServer(t, lm, ids[m], "ACTIVE", hostA.Name)
	}
	t.Logf("3 guests ACTIVE on %s after %.1fs", hostA.Name, time.Since(start).Seconds())
	toB := map[string]any{"os-migrateLive": map[string]any{"host": hostB.Name, "block_migration": true}}
	var rows []string
	row := func(m nova.SecretMode, op string, got actionResult, predicted string) {
		rows = append(rows, fmt.Sprintf("| %s | %s | HTTP %d %s | %s |", m, op, got.status, got.message, predicted))
	}

	// "Can I drain A?" from both hosts' reports, before anything moves:
	// host mode live, the others cold (what the rest of this test and
	// TestIntegrationColdMigration then do).
	drain, findings := drainSeen(t, hostA.Name, 1)
	for _, m := range modes {
		want := fleet.DrainCold
		if m == nova.SecretHost {
			want = fleet.DrainLive
		}
		g := drain[ids[m]]
		if g.Drain != want {
			t.Errorf("hosts audit --drain %s: %s mode %s (%s), want %s", hostA.Name, m, g.Drain, g.DrainReason, want)
		}
		rows = append(rows, fmt.Sprintf("| %s | hosts audit --drain %s | (prediction) | %s: %s |", m, hostA.Name, g.Drain, g.DrainReason))
	}

	// user and deployment: refused by the API before any scheduling
	for _, m := range modes[1:] {
		want, refused := predictOps(t, imgName, flavorName[m])["live-migration"]
		if !refused {
			t.Errorf("%s mode: check does not predict the live migration's refusal", m)
		}
		want = strings.ReplaceAll(want, "<server-uuid>", ids[m])
		got := action(t, lm, ids[m], toB)
		row(m, "live-migration to B", got, "refused: "+want)
		if got.status != 400 || got.message != want {
			t.Errorf("%s mode: Nova HTTP %d %q, check %q", m, got.status, got.message, want)
		}
		waitServer(t, lm, ids[m], "ACTIVE", hostA.Name)
	}

	// host mode: allowed, on a destination with the mode's trait
	hostID := ids[nova.SecretHost]
	if msg, refused := predictOps(t, imgName, flavorName[nova.SecretHost])["live-migration"]; refused {
		t.Errorf("host mode: check predicts a refusal on %s: %q", devcloudtest.Release(), msg)
	}
	var pred struct {
		Required []string `json:"required_traits"`
	}
	if err := json.Unmarshal(runCheckJSON(t, imgName, flavorName[nova.SecretHost]), &pred); err != nil {
		t.Fatal(err)
	}
	trait := nova.SecretHost.Trait()
	if !contains(pred.Required, trait) {
		t.Errorf("check's required traits %v lack %s", pred.Required, trait)
	}

	// B without the trait: no valid host, the guest stays on A
	rpB := providerUUID(t, placement, hostB.Name)
	old := setTraits(t, placement, rpB, func(ts []string) []string { return without(ts, trait) })
	restored := false
	restore := func() {
		if !restored {
			setTraits(t, placement, rpB, func([]string) []string { return old })
			restored = true
		}
	}
	t.Cleanup(restore)
	if !contains(old, trait) {
		t.Fatalf("%s does not report %s: %v", hostB.Name, trait, tpmTraits(old))
	}
	got := action(t, lm, hostID, toB)
	row(nova.SecretHost, "live-migration to B without "+trait, got, "no valid host: "+trait+" required")
	if got.status != 400 || !strings.HasPrefix(got.message, "No valid host was found.") {
		t.Errorf("host mode to a destination without %s: Nova HTTP %d %q", trait, got.status, got.message)
	}
	waitServer(t, lm, hostID, "ACTIVE", hostA.Name)
	restore()

	// A marker into the TPM's NV memory, through the host: the guest is
	// stopped so that its swtpm is not running on the state.
	serverAction(t, lm, hostID, "os-stop")
	waitServer(t, lm, hostID, "SHUTOFF", hostA.Name)
	marker := fmt.Sprintf("vtpmctl marker %s written on %s", time.Now().UTC().Format("20060102T150405.000Z"), hostA.Name)
	before := hostA.WriteTPMMarker(t, hostID, marker)
	if before.Marker != marker {
		t.Fatalf("marker read back on %s: %q, want %q", hostA.Name, before.Marker, marker)
	}
	secretA := hostA.VTPMSecret(t, hostID)
	serverAction(t, lm, hostID, "os-start")
	waitServer(t, lm, hostID, "ACTIVE", hostA.Name)

	t0 := time.Now()
	got = action(t, lm, hostID, toB)
	if got.status != 202 {
		t.Fatalf("host mode live migration: Nova HTTP %d %q", got.status, got.message)
	}
	waitServer(t, lm, hostID, "ACTIVE", hostB.Name)
	took := time.Since(t0)
	after := hostB.ReadTPM(t, hostID)
	row(nova.SecretHost, "live-migration to B", got, "allowed")
	t.Logf("host mode: migrated to %s in %.1fs; EK %s… on A, %s… on B; marker on B %q; libvirt secret %s on A, %s on B after",
		hostB.Name, took.Seconds(), before.EK[:16], after.EK[:16], after.Marker, secretA, hostB.VTPMSecret(t, hostID))
	if after.EK != before.EK {
		t.Errorf("the EK on %s (%s) is not the one on %s (%s): the TPM state did not arrive", hostB.Name, after.EK, hostA.Name, before.EK)
	}
	if after.Marker != marker {
		t.Errorf("marker on %s: %q, want %q", hostB.Name, after.Marker, marker)
	}
	if s := hostA.VTPMSecret(t, hostID); s != "" {
		t.Logf("note: %s still has the libvirt secret %s after the migration", hostA.Name, s)
	}

	// and back to A: the state makes the round trip (none left on A, so
	// what A reads afterwards came back from B)
	if hostA.HasTPMState(t, hostID) {
		t.Errorf("%s still holds the TPM state of %s after the migration", hostA.Name, hostID)
	}
	t0 = time.Now()
	got = action(t, lm, hostID, map[string]any{"os-migrateLive": map[string]any{"host": hostA.Name, "block_migration": true}})
	if got.status != 202 {
		t.Fatalf("host mode live migration back to %s: Nova HTTP %d %q", hostA.Name, got.status, got.message)
	}
	waitServer(t, lm, hostID, "ACTIVE", hostA.Name)
	back := hostA.ReadTPM(t, hostID)
	if hostB.HasTPMState(t, hostID) {
		t.Errorf("%s still holds the TPM state of %s after the migration back", hostB.Name, hostID)
	}
	row(nova.SecretHost, "live-migration back to A", got, "allowed")
	t.Logf("host mode: back on %s in %.1fs; EK %s…, marker %q", hostA.Name, time.Since(t0).Seconds(), back.EK[:16], back.Marker)
	if back.EK != before.EK || back.Marker != marker {
		t.Errorf("back on %s: EK %s marker %q, want EK %s marker %q", hostA.Name, back.EK, back.Marker, before.EK, marker)
	}
	t.Logf("\n| host | readiness |\n|---|---|\n%s", strings.Join(findings, "\n"))
	t.Logf("\n| mode | operation | Nova (%s) | vtpmctl check |\n|---|---|---|---|\n%s\n(%.0fs)",
		devcloudtest.Release(), strings.Join(rows, "\n"), time.Since(start).Seconds())
}

// createOnHost adds "host" (2.74, admins) to a server create.
type createOnHost struct {
	servers.CreateOpts
	host string
}

func (c createOnHost) ToServerCreateMap() (map[string]any, error) {
	m, err := c.CreateOpts.ToServerCreateMap()
	if err == nil {
		m["server"].(map[string]any)["host"] = c.host
	}
	return m, err
}

// serverAction posts an action Nova must accept (202; confirmResize 204).
func serverAction(t *testing.T, c *gophercloud.ServiceClient, id, name string) {
	t.Helper()
	if r := action(t, c, id, map[string]any{name: nil}); r.status != 202 && r.status != 204 {
		t.Fatalf("%s %s: HTTP %d %s", name, id, r.status, r.message)
	}
}

// waitServer waits until the server has settled (no task) in status on
// host, and fails on ERROR or when it settles anywhere else.
func waitServer(t *testing.T, c *gophercloud.ServiceClient, id, status, host string) {
	t.Helper()
	type server struct {
		Server struct {
			Status    string `json:"status"`
			Host      string `json:"OS-EXT-SRV-ATTR:host"`
			TaskState string `json:"OS-EXT-STS:task_state"`
			Fault     struct {
				Message string `json:"message"`
			} `json:"fault"`
		} `json:"server"`
	}
	var s server
	for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		s = server{} // a null task_state must not keep the last one
		if _, err := c.Get(context.Background(), c.ServiceURL("servers", id), &s, nil); err != nil {
			t.Fatal(err)
		}
		switch {
		case s.Server.Status == "ERROR":
			t.Fatalf("server %s in ERROR on %s: %s", id, s.Server.Host, s.Server.Fault.Message)
		case s.Server.TaskState != "" || s.Server.Status == "MIGRATING":
			continue
		case s.Server.Status == "VERIFY_RESIZE" && status != "VERIFY_RESIZE":
			continue // a confirm is asynchronous and sets no task state

		case s.Server.Status == status && s.Server.Host == host:
			return
		case s.Server.Status != "BUILD" && s.Server.Status != status:
			t.Fatalf("server %s settled %s on %s, want %s on %s", id, s.Server.Status, s.Server.Host, status, host)
		case s.Server.Status == status && s.Server.Host != "":
			t.Fatalf("server %s is %s on %s, want %s", id, status, s.Server.Host, host)
		}
	}
	t.Fatalf("server %s: %s on %s (task %q) after 5 minutes, want %s on %s", id, s.Server.Status, s.Server.Host, s.Server.TaskState, status, host)
}

// deleteAll deletes the servers at once and waits for them to go.
func deleteAll(c *gophercloud.ServiceClient, ids map[nova.SecretMode]string) {
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		go func(id string) { defer wg.Done(); deleteAndWait(c, id) }(id)
	}
	wg.Wait()
}

// providerUUID finds a compute's resource provider by its name (the
// hypervisor hostname, which on the devcloud is the host's name).
func providerUUID(t *testing.T, placement *gophercloud.ServiceClient, name string) string {
	t.Helper()
	var r struct {
		Providers []struct {
			UUID string `json:"uuid"`
		} `json:"resource_providers"`
	}
	if _, err := placement.Get(context.Background(), placement.ServiceURL("resource_providers")+"?name="+name, &r, nil); err != nil {
		t.Fatal(err)
	}
	if len(r.Providers) != 1 {
		t.Fatalf("%d resource providers named %s", len(r.Providers), name)
	}
	return r.Providers[0].UUID
}

func without(l []string, v string) []string {
	var out []string
	for _, s := range l {
		if s != v {
			out = append(out, s)
		}
	}
	return out
}
