//go:build integration

package main

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	apphosts "github.com/vtpmctl/vtpmctl/app/hosts"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/placement/v1/resourceproviders"

	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/devcloudtest"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
)

// hostCheckOpts points `host check` at the devcloud's real nova.conf,
// qemu.conf, libvirtd and state dir; for a newer release's cloud, as an
// auditor reads a mounted host: --root at its chroot, paths as its config
// names them, and its libvirtd's socket.
func hostCheckOpts(streams *IOStreams, g *globalOptions, extraConf string) *hostCheckOptions {
	d := devcloudtest.ConfDir()
	conf := []string{filepath.Join(d, "etc/nova/nova-cpu.conf")}
	if extraConf != "" {
		conf = append(conf, filepath.Join(d, "etc/nova", extraConf))
	}
	o := &hostCheckOptions{IO: streams, Global: g, NovaConf: conf, QemuConf: filepath.Join(d, "etc/libvirt/qemu.conf"),
		StateDir: filepath.Join(d, "data/libvirt/lib/swtpm"), Root: devcloudtest.Root()}
	if o.Root != "" {
		// the chroot's libvirtd keeps its default state dir
		o.LibvirtURI, o.StateDir = devcloudtest.LibvirtURI(), "/var/lib/libvirt/swtpm"
	}
	return o
}

// TestIntegrationHostCheck runs against the real libvirtd, QEMU and swtpm
// with a running vTPM guest, and compares the traits it predicts with
// what real Placement holds for the host.
func TestIntegrationHostCheck(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	imageClient, acompute, dcompute := testClients(t)
	imgID := devcloudtest.CreateImage(t, imageClient, devcloudtest.Unique("hc-img"), map[string]string{"hw_tpm_version": "2.0", "hw_tpm_model": "tpm-crb"})
	flvID := devcloudtest.CreateFlavor(t, acompute, devcloudtest.Unique("hc-flv"), nil)
	s, err := servers.Create(ctx, dcompute, servers.CreateOpts{Name: devcloudtest.Unique("hc"), ImageRef: imgID, FlavorRef: flvID,
		Networks: "none", AvailabilityZone: "libvirt"}, nil).Extract()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteAndWait(dcompute, s.ID) })
	waitActive(t, dcompute, s.ID)

	r := h.run(func(streams *IOStreams) error { return runHostCheck(ctx, hostCheckOpts(streams, h.global(""), "")) })
	if r.code != 0 {
		t.Fatalf("host check on the devcloud: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var rep hostcheck.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("JSON: %v", err)
	}
	var guest *hostcheck.Guest
	for i := range rep.VTPMGuests {
		if rep.VTPMGuests[i].UUID == s.ID {
			guest = &rep.VTPMGuests[i]
		}
	}
	if guest == nil || guest.Model != "tpm-crb" || guest.Version != "2.0" || guest.SecretID == "" {
		t.Fatalf("the running vTPM guest is not reported right: %+v", rep.VTPMGuests)
	}
	if _, err := os.Stat(devcloudtest.InRoot(guest.StateDir)); err != nil {
		t.Errorf("state dir %s: %v", guest.StateDir, err)
	}
	for _, id := range []string{"SWTPM-ENABLED", "DOMCAPS-TPM", "UEFI-SECURE-BOOT", "SWTPM-BINARIES", "VTPM-GUESTS", "TRAITS"} {
		if c := findCheck(rep, id); c.Status != hostcheck.Pass {
			t.Errorf("%s: %s %s", id, c.Status, c.Message)
		}
	}
	// The traits host check derives must be the ones Nova put in Placement.
	_, _, hosts := fakeProvider(t)
	for _, f := range hosts {
		if f.Hypervisor == rep.Facts.HypervisorHostname && !reflect.DeepEqual(f.Traits, rep.Traits) {
			t.Errorf("host check predicts %v, Placement has %v", rep.Traits, f.Traits)
		}
	}
}

// TestIntegrationHostsAudit makes the fake compute's traits stale on
// purpose and expects the fleet audit to flag the drift.
func TestIntegrationHostsAudit(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	dir := t.TempDir()
	for name, extra := range map[string]string{"devcloud.json": "", "devcloud-fake.json": "nova-fake.conf"} {
		r := h.run(func(streams *IOStreams) error { return runHostCheck(ctx, hostCheckOpts(streams, h.global(""), extra)) })
		if r.code == 2 {
			t.Fatalf("host check: %s", r.stderr)
		}
		os.WriteFile(filepath.Join(dir, name), []byte(r.stdout), 0o644)
	}
	placement, fakeRP, hosts := fakeProvider(t)
	old := setTraits(t, placement, fakeRP, func(ts []string) []string { return append(ts, "COMPUTE_SECURITY_TPM_2_0") })
	t.Cleanup(func() { setTraits(t, placement, fakeRP, func([]string) []string { return old }) })

	junit := filepath.Join(dir, "fleet.xml")
	r := h.run(func(streams *IOStreams) error {
		return runHostsAudit(ctx, &hostsOptions{IO: streams, Global: h.global("devcloud-admin"), Dir: dir, JUnit: junit})
	})
	if r.code != 1 {
		t.Fatalf("audit with a stale trait: exit %d: %s", r.code, r.stderr)
	}
	var out struct {
		Summary fleet.Summary      `json:"summary"`
		Hosts   []hostcheck.Report `json:"hosts"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("JSON: %v\n%s", err, r.stdout)
	}
	for _, rep := range out.Hosts {
		c := findCheck(rep, "CONFIG-DRIFT")
		switch rep.Host {
		case "devcloud":
			if c.Status != hostcheck.Pass {
				t.Errorf("devcloud drift: %s %s", c.Status, c.Message)
			}
		case "devcloud-fake":
			if c.Status != hostcheck.Fail || !strings.Contains(c.Message, "Placement has COMPUTE_SECURITY_TPM_2_0") {
				t.Errorf("stale trait not flagged: %s %s", c.Status, c.Message)
			}
		}
	}
	if out.Summary.Hosts != len(hosts) || out.Summary.TPM20 < 1 {
		t.Errorf("summary %+v", out.Summary)
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Tests int `xml:"tests,attr"`
		Fails int `xml:"failures,attr"`
	}
	if err := xml.Unmarshal(data, &back); err != nil || back.Fails < 1 || back.Tests < 4 {
		t.Errorf("JUnit %+v %v", back, err)
	}

	// A 2024.2 scheduler needs model traits that a Zed compute never reports.
	r = h.run(func(streams *IOStreams) error {
		return runHostsAudit(ctx, &hostsOptions{IO: streams, Global: h.global("devcloud-admin"), Release: nova.Dalmatian})
	})
	if r.code != 1 || !strings.Contains(r.stdout, "STALE-TRAITS") || !strings.Contains(r.stdout, "older than 2024.2") {
		t.Errorf("2024.2 audit of Zed computes: exit %d\n%s", r.code, r.stdout)
	}
}

func findCheck(r hostcheck.Report, id string) hostcheck.Check {
	for _, c := range r.Checks {
		if c.ID == id {
			return c
		}
	}
	return hostcheck.Check{ID: id, Status: "absent"}
}

// setTraits replaces a provider's traits (PUT with its generation) and
// returns the old ones.
func setTraits(t *testing.T, pl *gophercloud.ServiceClient, rp string, f func([]string) []string) []string {
	t.Helper()
	ctx := context.Background()
	cur, err := resourceproviders.GetTraits(ctx, pl, rp).Extract()
	if err != nil {
		t.Fatal(err)
	}
	old := append([]string{}, cur.Traits...)
	body := map[string]any{"resource_provider_generation": cur.ResourceProviderGeneration, "traits": f(cur.Traits)}
	if _, err := pl.Put(ctx, pl.ServiceURL("resource_providers", rp, "traits"), body, nil, &gophercloud.RequestOpts{OkCodes: []int{200}}); err != nil {
		t.Fatalf("set traits: %v", err)
	}
	return old
}

func waitActive(t *testing.T, c *gophercloud.ServiceClient, id string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		s, err := servers.Get(context.Background(), c, id).Extract()
		if err != nil {
			t.Fatal(err)
		}
		switch s.Status {
		case "ACTIVE":
			return
		case "ERROR":
			t.Fatalf("server %s in ERROR: %s", id, s.Fault.Message)
		}
		time.Sleep(time.Second)
	}
	t.Fatalf("server %s not ACTIVE after 5 minutes", id)
}

// fakeProvider finds the fake compute's resource provider.
func fakeProvider(t *testing.T) (placement *gophercloud.ServiceClient, rp string, hosts []fleet.Host) {
	t.Helper()
	admin := devcloudtest.Connect(t, "devcloud-admin")
	acompute, _ := admin.Compute()
	placement, _ = admin.Placement()
	placement.Microversion = "1.18"
	hosts, err := apphosts.List(context.Background(), acompute, placement)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range hosts {
		if f.Host == "devcloud-fake" {
			rp = f.RPUUID
		}
	}
	if rp == "" {
		t.Fatalf("no devcloud-fake provider in %+v", hosts)
	}
	return placement, rp, hosts
}

// TestIntegrationReleaseDetected: what the live cloud tells vtpmctl about
// its release. The compute API's maximum names the release or the pair
// sharing it (2025.1 shares 2.100 with 2025.2), and the installed nova
// package under the compute's root names it exactly.
func TestIntegrationReleaseDetected(t *testing.T) {
	_, acompute, _ := testClients(t)
	want := cloudRelease(t)
	det, err := compute.DetectCloudRelease(context.Background(), acompute)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range det.Candidates {
		found = found || c == want
	}
	if !found {
		t.Errorf("compute API maximum %s gives %v, not %s", det.MaxMicroversion, det.Candidates, want)
	}
	installed, err := hostcheck.DetectNovaRelease(devcloudtest.Root())
	if err != nil || installed != want {
		t.Errorf("installed nova package: %v %v, want %s", installed, err, want)
	}
	t.Logf("%s: compute API maximum %s → %v; installed package → %s", devcloudtest.Release(), det.MaxMicroversion, det.Candidates, installed)
}
