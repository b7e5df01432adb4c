//go:build integration

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"

	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/devcloudtest"
)

// bootVTPMGuest boots a TPM 2.0 guest as demo on the libvirt host.
func bootVTPMGuest(t *testing.T, prefix string) (*gophercloud.ServiceClient, string) {
	t.Helper()
	imageClient, acompute, dcompute := testClients(t)
	img := devcloudtest.CreateImage(t, imageClient, devcloudtest.Unique(prefix+"-img"), nil)
	flv := devcloudtest.CreateFlavor(t, acompute, devcloudtest.Unique(prefix+"-flv"), map[string]string{"hw:tpm_version": "2.0"})
	s, err := servers.Create(context.Background(), dcompute, servers.CreateOpts{Name: devcloudtest.Unique(prefix), ImageRef: img, FlavorRef: flv,
		Networks: "none", AvailabilityZone: "libvirt"}, nil).Extract()
	if err != nil {
		t.Fatal(err)
	}
	// The owner deletes it: with an admin's token from another project Nova
	// cannot delete the Barbican secret and the server goes to ERROR.
	t.Cleanup(func() { deleteAndWait(dcompute, s.ID) })
	waitActive(t, dcompute, s.ID)
	return dcompute, s.ID
}

// bootModeGuest boots a TPM 2.0 guest of one secret security mode (2026.1+)
// as demo on the libvirt host and waits for it.
func bootModeGuest(t *testing.T, acompute, dcompute *gophercloud.ServiceClient, img, prefix, mode string) string {
	t.Helper()
	flv := devcloudtest.CreateFlavor(t, acompute, devcloudtest.Unique(prefix+"-"+mode), map[string]string{"hw:tpm_version": "2.0", "hw:tpm_secret_security": mode})
	s, err := servers.Create(context.Background(), dcompute, servers.CreateOpts{Name: devcloudtest.Unique(prefix + "-" + mode), ImageRef: img, FlavorRef: flv,
		Networks: "none", AvailabilityZone: "libvirt"}, nil).Extract()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteAndWait(dcompute, s.ID) })
	waitActive(t, dcompute, s.ID)
	return s.ID
}

// bootGuests creates one server per flavor as demo on the libvirt host, all
// before waiting for any (Nova builds them side by side: one guest's wait
// instead of one per guest), waits until each is ACTIVE and deletes them
// together when the test ends. The IDs are in the flavors' order.
func bootGuests(t *testing.T, dcompute *gophercloud.ServiceClient, img, prefix string, flavors []string) []string {
	t.Helper()
	var ids []string
	// The owner deletes them (see bootVTPMGuest).
	t.Cleanup(func() { deleteAllAndWait(dcompute, ids...) })
	for _, flv := range flavors {
		s, err := servers.Create(context.Background(), dcompute, servers.CreateOpts{Name: devcloudtest.Unique(prefix), ImageRef: img, FlavorRef: flv,
			Networks: "none", AvailabilityZone: "libvirt"}, nil).Extract()
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	for _, id := range ids {
		waitActive(t, dcompute, id)
	}
	return ids
}

// TestIntegrationUpgradeAndEvacuation: a vTPM guest under the next
// release's scheduler is stranded until some other host reports the trait
// that scheduler adds (zed→2025.1: the model trait, which no Zed compute
// reports; 2025.1→2026.1: the secret security mode's); the fleet audit
// lists it as a guest its host would strand.
func TestIntegrationUpgradeAndEvacuation(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	dcompute, sid := bootVTPMGuest(t, "upg")
	upgrade := func(to string) runResult {
		rel, err := nova.ParseRelease(to)
		if err != nil {
			t.Fatal(err)
		}
		return h.run(func(streams *IOStreams) error {
			g := h.global("devcloud-admin")
			g.Output.Format = "table"
			return runUpgradeCheck(ctx, &upgradeOptions{IO: streams, Global: g, To: rel, Long: true}) // every stranded guest by ID
		})
	}
	cur := devcloudtest.Release()
	next, trait := map[string]string{"zed": "2025.1", "2025.1": "2026.1"}[cur], map[string]string{
		"zed":    "COMPUTE_SECURITY_TPM_TIS", // Zed's Placement does not even know it
		"2025.1": "COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER",
	}[cur]
	if next != "" {
		r := upgrade(next)
		if r.code != 1 || !strings.Contains(r.stdout, sid) || !strings.Contains(r.stdout, trait) {
			t.Fatalf("a %s scheduler over %s computes must strand the guest for %s: exit %d\n%s%s", next, cur, trait, r.code, r.stdout, r.stderr)
		}
	}
	// Today the guest has nowhere to go either: the only other host (fake)
	// lacks the TPM traits ...
	if r := upgrade(cur); r.code != 1 || !strings.Contains(r.stdout, sid) {
		t.Errorf("one vTPM host only: the guest is stranded: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// ... until the fake compute reports them (set by hand, as stale traits are).
	rel := cloudRelease(t)
	var mode nova.SecretMode
	if rel.HasSecretSecurity() {
		mode = "user"
	}
	placement, fakeRP, _ := fakeProvider(t)
	old := setTraits(t, placement, fakeRP, func(ts []string) []string {
		return append(append(ts, "COMPUTE_SECURITY_TPM_1_2"), nova.RequiredTraits(rel, "2.0", "tpm-tis", mode)...)
	})
	restored := false
	restore := func() {
		if !restored {
			setTraits(t, placement, fakeRP, func([]string) []string { return old })
			restored = true
		}
	}
	t.Cleanup(restore)
	if r := upgrade(cur); r.code != 0 || !strings.Contains(r.stdout, "0 vTPM guest(s) stranded") {
		t.Errorf("with another capable host nothing is stranded: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	restore()

	audit := func() fleet.HostReport {
		r := h.run(func(streams *IOStreams) error {
			return runHostsAudit(ctx, &hostsOptions{IO: streams, Global: h.global("devcloud-admin")})
		})
		var out fleet.Result
		json.Unmarshal([]byte(r.stdout), &out)
		for _, rep := range out.Hosts {
			if rep.Host == "devcloud" {
				return rep
			}
		}
		t.Fatalf("no devcloud in the fleet audit: %s", r.stdout)
		return fleet.HostReport{}
	}
	atRisk := func(rep fleet.HostReport) *fleet.RiskGuest {
		for i := range rep.AtRisk {
			if rep.AtRisk[i].ServerID == sid {
				return &rep.AtRisk[i]
			}
		}
		return nil
	}
	rep := audit()
	if c := findCheck(rep.Report, "EVACUATION-RISK"); c.Status != hostcheck.Warn || atRisk(rep) == nil || atRisk(rep).Mode != "user" {
		t.Errorf("evacuation risk: %+v %+v", c, rep.AtRisk)
	}
	deleteAndWait(dcompute, sid)
	if g := atRisk(audit()); g != nil {
		t.Errorf("with the guest gone it is no longer at risk: %+v", g)
	}
}

// TestIntegrationResumeOnBootTrap: with resume_guests_state_on_host_boot a
// user-mode vTPM guest comes back in ERROR after a host reboot; host check
// says so before it happens, and stops saying so once the option is off.
// From 2026.1 host- and deployment-mode guests on the same host come back
// ACTIVE, and host check counts them apart.
func TestIntegrationResumeOnBootTrap(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	imageClient, acompute, dcompute := testClients(t)
	img := devcloudtest.CreateImage(t, imageClient, devcloudtest.Unique("trap-img"), nil)
	// A user-mode guest (no mode asked: the default), and from 2026.1 a
	// host- and a deployment-mode guest, booted together.
	flavors := []string{devcloudtest.CreateFlavor(t, acompute, devcloudtest.Unique("trap-flv"), map[string]string{"hw:tpm_version": "2.0"})}
	if cloudRelease(t).HasSecretSecurity() {
		for _, m := range []nova.SecretMode{nova.SecretHost, nova.SecretDeployment} {
			flavors = append(flavors, devcloudtest.CreateFlavor(t, acompute, devcloudtest.Unique("trap-"+string(m)),
				map[string]string{"hw:tpm_version": "2.0", "hw:tpm_secret_security": string(m)}))
		}
	}
	ids := bootGuests(t, dcompute, img, "trap", flavors)
	sid, others := ids[0], ids[1:]
	restart := func(args ...string) { t.Helper(); devcloudtest.RestartCompute(t, args...) }
	restored := false // each restart waits out init_host: no more than needed
	t.Cleanup(func() {
		if !restored {
			restart("--no-resume-guests-on-boot")
		}
	})
	check := func() hostcheck.Check {
		r := h.run(func(streams *IOStreams) error { return runHostCheck(ctx, hostCheckOpts(streams, h.global(""), "")) })
		var rep hostcheck.Report
		json.Unmarshal([]byte(r.stdout), &rep)
		return findCheck(rep, "RESUME-ON-BOOT")
	}
	restart("--resume-guests-on-boot", "--config-only") // host check reads the config
	if c := check(); c.Status != hostcheck.Fail || !strings.Contains(c.Message, "1 user-mode vTPM guest(s)") ||
		(len(others) > 0 && !strings.Contains(c.Message, fmt.Sprintf("the %d host- or deployment-mode guest(s) come back", len(others)))) {
		t.Errorf("host check before the reboot: %+v", c)
	}
	// The trap, for real: a host reboot with the option on.
	restart("--resume-guests-on-boot", "--host-reboot")
	status, fault := "", ""
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		s, err := servers.Get(ctx, dcompute, sid).Extract()
		if err != nil {
			t.Fatal(err)
		}
		status, fault = s.Status, s.Fault.Message
		if status == "ERROR" {
			break
		}
	}
	if status != "ERROR" {
		t.Fatalf("after the host reboot the user-mode vTPM guest is %s, not ERROR", status)
	}
	t.Logf("after the host reboot: %s (%s)", status, fault)
	for _, id := range others {
		waitActive(t, dcompute, id) // they resume by themselves
		t.Logf("after the host reboot: %s ACTIVE", id)
	}

	// The fix: option off; an admin resets the state, the owner hard-reboots.
	// Nova reads the option only in init_host, which is over: the config
	// file is the whole fix (what host check reads), a restart would add
	// nothing the hard reboot below does not already show.
	restart("--no-resume-guests-on-boot", "--config-only")
	restored = true
	if c := check(); c.Status != hostcheck.Pass {
		t.Errorf("host check with the option off: %+v", c)
	}
	admin := devcloudtest.Connect(t, "devcloud-admin")
	acompute, _ = admin.Compute()
	if err := servers.ResetState(ctx, acompute, sid, servers.StateActive).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	if err := servers.Reboot(ctx, dcompute, sid, servers.RebootOpts{Type: servers.HardReboot}).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	waitActive(t, dcompute, sid)
}
