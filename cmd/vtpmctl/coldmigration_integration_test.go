//go:build integration

package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"

	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/devcloudtest"
)

// TestIntegrationColdMigration moves vTPM guests between the two libvirt
// computes the way Nova allows for every secret mode (cold migration and
// resize: the source copies the instance directory and the TPM state to
// the destination over ssh):
//   - evacuation is refused with Nova's text, as check predicts;
//   - a stopped guest cold-migrated to B (2.56, "host") arrives with its
//     TPM state byte for byte (the encrypted swtpm state file's SHA-256 on
//     A before, on B after: the guest stays off, so swtpm has not rewritten
//     it), then is confirmed and started on B;
//   - a resize to B reverted: host check's RESIZE-REVERT (bug 2125030,
//     decided from the installed code) says whether the guest comes back
//     ACTIVE on A or ends in ERROR "Refusing to create an emulated TPM with
//     no secret"; what happens must be what it said.
//
// It needs host B (devcloud/second-compute.sh; integration.sh runs it in
// the pass with B).
func TestIntegrationColdMigration(t *testing.T) {
	// 2025.1 carries bug 2125030, 2026.2 does not; 2026.1 runs 2026.2's
	// code for these operations, so the suite's minutes go elsewhere.
	devcloudtest.Only(t, "2025.1", "2026.2")
	if !devcloudtest.HostBUp() {
		t.Skipf("the %s cloud has no second libvirt compute: bash devcloud/second-compute.sh %s up", devcloudtest.Release(), devcloudtest.Release())
	}
	start := time.Now()
	ctx := context.Background()
	h := newHarness(t)
	hostA, hostB := devcloudtest.HostA(t), devcloudtest.HostB(t)
	revert := bugCheck(t, h, "RESIZE-REVERT")

	imageClient, acompute, _ := testClients(t)
	admin := devcloudtest.Connect(t, "devcloud-admin")
	boot, _ := admin.Compute()
	boot.Microversion = "2.74" // "host": every guest starts on A
	mv, _ := admin.Compute()
	mv.Microversion = "2.56" // a cold migration's destination host
	imgName := devcloudtest.Unique("cm-img")
	img := devcloudtest.CreateImage(t, imageClient, imgName, map[string]string{"os_shutdown_timeout": "0"})

	// The modes the release has; before 2026.1 the one legacy mode.
	modes := []nova.SecretMode{""}
	if cloudRelease(t) >= nova.Gazpacho {
		modes = []nova.SecretMode{nova.SecretUser, nova.SecretHost, nova.SecretDeployment}
	}
	specs := func(m nova.SecretMode) map[string]string {
		s := map[string]string{"hw:tpm_version": "2.0", "hw:tpm_model": "tpm-crb"}
		if m != "" {
			s["hw:tpm_secret_security"] = string(m)
		}
		return s
	}
	label := func(m nova.SecretMode) string {
		if m == "" {
			return "user (legacy)"
		}
		return string(m)
	}
	flavorName, flavorID, ids := map[nova.SecretMode]string{}, map[nova.SecretMode]string{}, map[nova.SecretMode]string{}
	for _, m := range modes {
		flavorName[m] = devcloudtest.Unique("cm-" + label(m)[:4])
		flavorID[m] = devcloudtest.CreateFlavor(t, acompute, flavorName[m], specs(m))
	}
	// the resize target: the first mode's TPM, one more vCPU
	bigger := devcloudtest.CreateFlavorSized(t, acompute, devcloudtest.Unique("cm-big"), 2, specs(modes[0]))
	revertID := ""
	var mu sync.Mutex
	var wg sync.WaitGroup
	bootOne := func(name, flavor string, set func(string)) {
		defer wg.Done()
		s, err := servers.Create(ctx, boot, createOnHost{servers.CreateOpts{Name: devcloudtest.Unique(name),
			ImageRef: img, FlavorRef: flavor, Networks: "none"}, hostA.Name}, nil).Extract()
		if err != nil {
			t.Errorf("boot %s on %s: %v", name, hostA.Name, err)
			return
		}
		mu.Lock()
		set(s.ID)
		mu.Unlock()
	}
	for _, m := range modes {
		wg.Add(1)
		go bootOne("cm-"+label(m)[:4], flavorID[m], func(id string) { ids[m] = id })
	}
	wg.Add(1)
	go bootOne("cm-revert", flavorID[modes[0]], func(id string) { revertID = id })
	wg.Wait()
	t.Cleanup(func() {
		all := map[nova.SecretMode]string{"revert": revertID}
		for m, id := range ids {
			all[m+"-cm"] = id
		}
		deleteAll(mv, all)
		for _, h := range []devcloudtest.ComputeHost{hostA, hostB} {
			h.ForgetVTPMSecrets(revertID, ids[nova.SecretHost])
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	var rowsMu sync.Mutex
	var rows []string
	row := func(m nova.SecretMode, op, happened, predicted string) {
		rowsMu.Lock()
		defer rowsMu.Unlock()
		rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s |", label(m), op, happened, predicted))
	}

	for _, m := range modes {
		waitServer(t, mv, ids[m], "ACTIVE", hostA.Name)
	}
	// "Can I drain A?" before anything moves: before 2026.1 no vTPM guest
	// live-migrates, so each is a cold migration (then done below).
	hostModes := 0
	if _, ok := ids[nova.SecretHost]; ok {
		hostModes = 1
	}
	drain, findings := drainSeen(t, hostA.Name, hostModes)
	for _, m := range modes {
		g := drain[ids[m]]
		want := fleet.DrainCold
		if m == nova.SecretHost {
			want = fleet.DrainLive
		}
		if g.Drain != want {
			t.Errorf("hosts audit --drain %s: %s %s (%s), want %s", hostA.Name, label(m), g.Drain, g.DrainReason, want)
		}
		row(m, "hosts audit --drain "+hostA.Name, "(prediction)", string(g.Drain)+": "+g.DrainReason)
	}
	mc := moveCase{mv: mv, hostA: hostA, hostB: hostB, row: row}
	// the guests move at once (Nova copies each over its own ssh)
	t.Run("moves", func(t *testing.T) {
		for _, m := range modes {
			m := m
			t.Run(label(m), func(t *testing.T) {
				t.Parallel()
				ops := predictOps(t, imgName, flavorName[m])
				if _, ok := ops["cold-migration"]; ok {
					t.Errorf("%s: check predicts a refused cold migration", label(m))
				}
				mc.evacuateRefused(t, m, ids[m], ops)
				mc.coldMigrate(t, m, ids[m])
			})
		}
		t.Run("resize-revert", func(t *testing.T) {
			t.Parallel()
			mc.resizeRevert(t, modes[0], revertID, bigger, revert)
		})
	})
	sort.Strings(rows[len(modes):]) // the drain's rows first, then per mode
	t.Logf("\n| host | readiness |\n|---|---|\n%s", strings.Join(findings, "\n"))
	t.Logf("\n| mode | operation | Nova (%s) | vtpmctl |\n|---|---|---|---|\n%s\n(%.0fs)",
		devcloudtest.Release(), strings.Join(rows, "\n"), time.Since(start).Seconds())
}

// moveCase: what the moves of TestIntegrationColdMigration share.
type moveCase struct {
	mv           *gophercloud.ServiceClient // 2.56
	hostA, hostB devcloudtest.ComputeHost
	row          func(m nova.SecretMode, op, happened, predicted string)
}

// evacuateRefused: Nova refuses before the source's state matters, in
// check's words.
func (c moveCase) evacuateRefused(t *testing.T, m nova.SecretMode, id string, ops map[string]string) {
	want, refused := ops["evacuate"]
	want = strings.ReplaceAll(want, "<server-uuid>", id)
	got := action(t, c.mv, id, map[string]any{"evacuate": map[string]any{"host": c.hostB.Name}})
	c.row(m, "evacuate to B", fmt.Sprintf("HTTP %d %s", got.status, got.message), "refused: "+want)
	if !refused || got.status != 400 || got.message != want {
		t.Errorf("evacuate: Nova HTTP %d %q, check predicted refused=%v %q", got.status, got.message, refused, want)
	}
}

// coldMigrate: the stopped guest's TPM state file arrives as it was, then
// the move is confirmed and the guest started on B.
func (c moveCase) coldMigrate(t *testing.T, m nova.SecretMode, id string) {
	serverAction(t, c.mv, id, "os-stop")
	waitServer(t, c.mv, id, "SHUTOFF", c.hostA.Name)
	before := c.hostA.TPMStateHash(t, id)
	t0 := time.Now()
	got := action(t, c.mv, id, map[string]any{"migrate": map[string]any{"host": c.hostB.Name}})
	if got.status != 202 {
		c.row(m, "cold migration to B", fmt.Sprintf("HTTP %d %s", got.status, got.message), "allowed")
		t.Fatalf("cold migration to %s: Nova HTTP %d %q", c.hostB.Name, got.status, got.message)
	}
	waitServer(t, c.mv, id, "VERIFY_RESIZE", c.hostB.Name)
	if after := c.hostB.TPMStateHash(t, id); after != before {
		t.Errorf("TPM state on %s %s…, on %s before %s…: the state did not arrive", c.hostB.Name, after[:16], c.hostA.Name, before[:16])
	}
	serverAction(t, c.mv, id, "confirmResize")
	waitServer(t, c.mv, id, "SHUTOFF", c.hostB.Name)
	serverAction(t, c.mv, id, "os-start")
	waitServer(t, c.mv, id, "ACTIVE", c.hostB.Name)
	c.row(m, "cold migration to B, confirm, start", fmt.Sprintf("HTTP 202, ACTIVE on B in %.0fs; TPM state %s… on A and B", time.Since(t0).Seconds(), before[:12]), "allowed (check refuses it in no mode)")
}

// resizeRevert: a resize to B reverted ends as RESIZE-REVERT said.
func (c moveCase) resizeRevert(t *testing.T, m nova.SecretMode, id, bigger string, revert hostcheck.Check) {
	keeps := revert.Status == hostcheck.Pass
	waitServer(t, c.mv, id, "ACTIVE", c.hostA.Name)
	serverAction(t, c.mv, id, "os-stop")
	waitServer(t, c.mv, id, "SHUTOFF", c.hostA.Name)
	before := c.hostA.TPMStateHash(t, id)
	if got := action(t, c.mv, id, map[string]any{"resize": map[string]any{"flavorRef": bigger}}); got.status != 202 {
		t.Fatalf("resize: Nova HTTP %d %q", got.status, got.message)
	}
	waitServer(t, c.mv, id, "VERIFY_RESIZE", c.hostB.Name)
	serverAction(t, c.mv, id, "revertResize")
	status, host, fault := settle(t, c.mv, id)
	predicted := "SHUTOFF on A, TPM state kept"
	if !keeps {
		predicted = "ERROR: Refusing to create an emulated TPM with no secret"
	}
	happened := fmt.Sprintf("%s on %s", status, host)
	switch {
	case status == "SHUTOFF" && host == c.hostA.Name && keeps:
		if after := c.hostA.TPMStateHash(t, id); after != before {
			t.Errorf("revert: TPM state on %s changed (%s… → %s…)", c.hostA.Name, before[:12], after[:12])
		}
		happened = "SHUTOFF on A (as before the resize), TPM state kept"
	case status == "ERROR" && !keeps && strings.Contains(fault, "Refusing to create an emulated TPM with no secret"):
		happened = "ERROR: " + fault
	default:
		t.Errorf("resize revert on %s: %s on %s (%s); host check's RESIZE-REVERT: %s %s", devcloudtest.Release(), status, host, fault, revert.Status, revert.Message)
		happened += " " + fault
	}
	c.row(m, "resize to B, revert", happened, fmt.Sprintf("RESIZE-REVERT %s: %s", revert.Status, predicted))
}

// settle waits for a server to leave its task (a revert) and returns where
// it ended, with its fault.
func settle(t *testing.T, c *gophercloud.ServiceClient, id string) (status, host, fault string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		var s struct {
			Server struct {
				Status    string `json:"status"`
				Host      string `json:"OS-EXT-SRV-ATTR:host"`
				TaskState string `json:"OS-EXT-STS:task_state"`
				Fault     struct {
					Message string `json:"message"`
				} `json:"fault"`
			} `json:"server"`
		}
		if _, err := c.Get(context.Background(), c.ServiceURL("servers", id), &s, nil); err != nil {
			t.Fatal(err)
		}
		if s.Server.TaskState == "" && s.Server.Status != "REVERT_RESIZE" && s.Server.Status != "VERIFY_RESIZE" {
			return s.Server.Status, s.Server.Host, s.Server.Fault.Message
		}
	}
	t.Fatalf("server %s did not settle in 5 minutes", id)
	return "", "", ""
}
