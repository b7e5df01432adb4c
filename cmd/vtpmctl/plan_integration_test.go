//go:build integration

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/migration"
	"github.com/vtpmctl/vtpmctl/internal/devcloudtest"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
	"github.com/vtpmctl/vtpmctl/openstack/glance"
)

// TestIntegrationPlanApply converges real Glance and Nova to a plan, with a
// fault that fails one image write in the middle; the rerun converges and
// a third run writes nothing.
func TestIntegrationPlanApply(t *testing.T) {
	devcloudtest.Require(t)
	ctx := context.Background()
	admin := devcloudtest.Connect(t, "devcloud-admin")
	imageClient, _ := admin.Image()
	computeClient, _ := admin.Compute()
	u := devcloudtest.Unique("plan")
	imgs := []string{u + "-w11", u + "-w19", u + "-rhel"}
	for _, n := range imgs {
		devcloudtest.CreateImage(t, imageClient, n, map[string]string{"hw_disk_bus": "ide"})
	}
	existing := u + "-m1"
	devcloudtest.CreateFlavor(t, computeClient, existing, map[string]string{"hw:tpm_version": "1.2"})
	newFlavor := u + "-w1"
	t.Cleanup(func() {
		if f, err := compute.FindFlavor(ctx, computeClient, newFlavor); err == nil {
			compute.DeleteFlavor(ctx, computeClient, f.ID)
		}
	})
	plan := fmt.Sprintf(`version: 1
images:
  - {name: %s, tpm_version: "2.0", tpm_model: tpm-crb, windows: true}
  - {name: %s, properties: {hw_firmware_type: uefi, hw_machine_type: q35, os_type: windows}}
  - {name: %s, properties: {os_type: linux}}
  - {name: %s-not-converted-yet, tpm_version: "2.0"}
flavors:
  - {name: %s, vcpus: 1, ram: 64, disk: 1, tpm_version: "2.0", tpm_model: tpm-crb}
  - {name: %s, vcpus: 1, ram: 64, disk: 1, tpm_version: "2.0"}
vms: []
`, imgs[0], imgs[1], imgs[2], u, newFlavor, existing)
	file := filepath.Join(t.TempDir(), "plan.yaml")
	os.WriteFile(file, []byte(plan), 0o644)

	// The second image PATCH fails with a 500, as a flaky Glance would.
	var patches int32
	h := newHarness(t)
	inner := h.wrap
	h.wrap = func(next http.RoundTripper) http.RoundTripper {
		return inner(roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if r.Method == http.MethodPatch && strings.Contains(r.URL.Path, "/v2/images/") && atomic.AddInt32(&patches, 1) == 2 {
				return &http.Response{StatusCode: 500, Status: "500 Internal Server Error", Header: http.Header{"Content-Type": {"application/json"}},
					Body: http.NoBody, Request: r}, nil
			}
			return next.RoundTrip(r)
		}))
	}
	apply := func(yes bool) runResult {
		return h.run(func(streams *IOStreams) error {
			return runPlanApply(ctx, &planApplyOptions{IO: streams, Global: h.global("devcloud-admin"), File: file}, yes)
		})
	}
	// diff writes nothing and names the pending image.
	r := apply(false)
	if r.code != 0 || len(r.writes) != 0 || !strings.Contains(r.stderr, "-not-converted-yet: pending") {
		t.Fatalf("diff: exit %d writes %v\n%s", r.code, r.writes, r.stderr)
	}
	r = apply(true)
	if r.code != 1 || !strings.Contains(r.stderr, "1 of 5 object(s) could not be changed") {
		t.Fatalf("apply with a fault: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	failed, applied := 0, 0
	for _, row := range r.rows {
		switch row["action"] {
		case "failed":
			failed++
		case "added", "replaced":
			applied++
		}
	}
	if failed == 0 || applied == 0 {
		t.Errorf("the report must say what was applied and what was not: %v", r.rows)
	}
	r = apply(true)
	if r.code != 0 {
		t.Fatalf("rerun: exit %d\n%s", r.code, r.stderr)
	}
	r = apply(true)
	if r.code != 0 || len(r.writes) != 0 {
		t.Errorf("third run: exit %d, writes %v (want none)", r.code, r.writes)
	}
	for i, want := range []map[string]string{
		{"hw_tpm_version": "2.0", "hw_tpm_model": "tpm-crb", "os_secure_boot": "required", "hw_disk_bus": "sata"},
		{"hw_firmware_type": "uefi", "os_type": "windows", "hw_disk_bus": "ide"},
		{"os_type": "linux"},
	} {
		ci, err := glance.FindImage(ctx, imageClient, imgs[i])
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range want {
			if ci.Properties[k] != v {
				t.Errorf("%s: %s=%q, want %q", imgs[i], k, ci.Properties[k], v)
			}
		}
	}
	for name, want := range map[string]string{newFlavor: "tpm-crb", existing: ""} {
		f, err := compute.FindFlavor(ctx, computeClient, name)
		if err != nil || f.ExtraSpecs["hw:tpm_version"] != "2.0" || f.ExtraSpecs["hw:tpm_model"] != want {
			t.Errorf("flavor %s: %v %v", name, f.ExtraSpecs, err)
		}
	}
}

// TestIntegrationPlanVerify is the cutover a migration team runs: plan
// apply stamps each VM's image with vtpmctl:source, the migration creates
// servers from it (under a new name: found by the image's stamp), host
// check reports the compute, and plan verify confirms every promise
// (vTPM, UEFI, Secure Boot, the secret, the host's traits, the domain's
// <tpm>); a VM converted with the wrong flavor and image is named with
// what it lacks.
func TestIntegrationPlanVerify(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	imageClient, acompute, dcompute := testClients(t)
	u := devcloudtest.Unique("pv")
	imgOK, imgWrong := u+"-ok-img", u+"-wrong-img"
	devcloudtest.CreateImage(t, imageClient, imgOK, nil)
	devcloudtest.CreateImage(t, imageClient, imgWrong, nil)
	plain := devcloudtest.CreateImage(t, imageClient, u+"-plain", nil)
	plainFlavor := devcloudtest.CreateFlavor(t, acompute, u+"-plain", nil)
	flv := u + "-vtpm"
	t.Cleanup(func() {
		if f, err := compute.FindFlavor(ctx, acompute, flv); err == nil {
			compute.DeleteFlavor(ctx, acompute, f.ID)
		}
	})
	vmOK, vmWrong := u+"-ok", u+"-wrong"
	// UEFI + Secure Boot + vTPM as the Windows profile sets them, without
	// os_type=windows: its Hyper-V enlightenments need a KVM that allows
	// them ("kernel doesn't allow setting HyperV VP_INDEX" when nested).
	plan := fmt.Sprintf(`version: 1
images:
  - {name: %[1]s, tpm_version: "2.0", tpm_model: tpm-crb, properties: {hw_firmware_type: uefi, hw_machine_type: q35, os_secure_boot: required}}
  - {name: %[2]s, tpm_version: "2.0", tpm_model: tpm-crb, properties: {hw_firmware_type: uefi, hw_machine_type: q35, os_secure_boot: required}}
flavors:
  - {name: %[3]s, vcpus: 1, ram: 64, disk: 1, tpm_version: "2.0", tpm_model: tpm-crb}
vms:
  - {name: %[4]s, vcenter: "https://VC01.example.com/sdk", vm_id: vm-1, guest_os: w, firmware: efi, secure_boot: "yes", source_vtpm: "yes", vcpus: 1, ram: 64, disk: 1, target_flavor: %[3]s, target_image: %[1]s, target_vtpm: 2.0 tpm-crb, bitlocker_escrow: unconfirmed}
  - {name: %[5]s, vcenter: vc01.example.com, vm_id: vm-2, guest_os: w, firmware: efi, secure_boot: "yes", source_vtpm: "yes", vcpus: 1, ram: 64, disk: 1, target_flavor: %[3]s, target_image: %[2]s, target_vtpm: 2.0 tpm-crb, bitlocker_escrow: confirmed}
`, imgOK, imgWrong, flv, vmOK, vmWrong)
	file := filepath.Join(t.TempDir(), "plan.yaml")
	os.WriteFile(file, []byte(plan), 0o644)
	if r := h.run(func(streams *IOStreams) error {
		return runPlanApply(ctx, &planApplyOptions{IO: streams, Global: h.global("devcloud-admin"), File: file}, true)
	}); r.code != 0 {
		t.Fatalf("apply: exit %d\n%s", r.code, r.stderr)
	}
	f, err := compute.FindFlavor(ctx, acompute, flv)
	if err != nil {
		t.Fatal(err)
	}
	ci, err := glance.FindImage(ctx, imageClient, imgOK)
	if err != nil {
		t.Fatal(err)
	}
	if got := ci.Properties[migration.SourceKey]; got != "vc01.example.com/vm-1" {
		t.Fatalf("plan apply stamped %s=%q on %s", migration.SourceKey, got, imgOK)
	}
	boot := func(name, image, flavor string) string {
		s, err := servers.Create(ctx, dcompute, servers.CreateOpts{Name: name, ImageRef: image, FlavorRef: flavor, Networks: "none", AvailabilityZone: "libvirt"}, nil).Extract()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { deleteAndWait(dcompute, s.ID) })
		waitActive(t, dcompute, s.ID)
		return s.ID
	}
	okID := boot(vmOK+"-migrated", ci.ID, f.ID) // another name: found by the image's stamp
	boot(vmWrong, plain, plainFlavor)           // the break: converted with the wrong flavor and image

	reports := t.TempDir()
	hr := h.run(func(streams *IOStreams) error { return runHostCheck(ctx, hostCheckOpts(streams, h.global(""), "")) })
	if err := os.WriteFile(filepath.Join(reports, "libvirt.json"), []byte(hr.stdout), 0o644); err != nil || !strings.Contains(hr.stdout, okID) {
		t.Fatalf("host check (exit %d) does not list %s: %v\n%s", hr.code, okID, err, hr.stderr)
	}

	junit := filepath.Join(t.TempDir(), "verify.xml")
	r := h.run(func(streams *IOStreams) error {
		return runPlanVerify(ctx, &planVerifyOptions{IO: streams, Global: h.global("devcloud-admin"), File: file, JUnit: junit, HostReports: reports, ServiceProject: "service"})
	})
	var out migration.VerifyResult
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("exit %d: %v\n%s", r.code, err, r.stderr)
	}
	got := map[string]migration.VMVerdict{}
	for _, v := range out.VMs {
		got[v.VM] = v
	}
	status := func(v migration.VMVerdict) map[string]string {
		m := map[string]string{}
		for _, c := range v.Checks {
			m[c.Check] = string(c.Status)
		}
		return m
	}
	for _, v := range out.VMs { // the record the closing note quotes
		t.Logf("%s: %s (server %s by %s) %v findings %q remedy %q", v.VM, v.Verdict, v.ServerID, v.MatchedBy, status(v), v.Findings, v.Remedy)
	}
	ok, wrong := got[vmOK], got[vmWrong]
	wantOK := map[string]string{"STATUS": "pass", "VTPM": "pass", "FIRMWARE": "pass", "SECURE-BOOT": "pass", "SECRET": "pass", "HOST-TRAITS": "pass", "DOMAIN-TPM": "pass"}
	// DOMAIN-TPM carries the guest's NVRAM view from the host's report: a
	// warning where the report puts the guest at risk high (zed and 2025.1
	// wipe the TPM state and the NVRAM on stop/start), else a pass.
	if risk := guestRisk(t, hr.stdout, okID); risk == hostcheck.RiskHigh {
		wantOK["DOMAIN-TPM"] = "warn"
	}
	t.Logf("%s: BitLocker-recovery risk in the host's report: %s", vmOK, guestRisk(t, hr.stdout, okID))
	if ok.Verdict != migration.Verified || ok.ServerID != okID || ok.MatchedBy != "image metadata "+migration.SourceKey || fmt.Sprint(status(ok)) != fmt.Sprint(wantOK) {
		t.Errorf("%s: %+v", vmOK, ok)
	}
	sw := status(wrong)
	if r.code != 1 || wrong.Verdict != migration.Missing || wrong.Actual != "none" || sw["VTPM"] != "fail" || sw["FIRMWARE"] != "fail" || sw["SECURE-BOOT"] != "fail" ||
		!strings.Contains(wrong.Remedy, flv) || len(out.Unconfirmed) != 1 || out.Unconfirmed[0] != vmOK {
		t.Errorf("exit %d\n%s", r.code, r.stdout)
	}
	if x, err := os.ReadFile(junit); err != nil || !strings.Contains(string(x), "failures=\"3\"") {
		t.Errorf("junit: %v\n%s", err, x)
	}
}

// guestRisk is a guest's BitLocker-recovery risk in a host check report.
func guestRisk(t *testing.T, report, id string) hostcheck.Risk {
	t.Helper()
	var rep hostcheck.Report
	if err := json.Unmarshal([]byte(report), &rep); err != nil {
		t.Fatalf("host check JSON: %v", err)
	}
	for _, g := range rep.VTPMGuests {
		if g.UUID == id && g.BitLocker != nil {
			return g.BitLocker.Risk
		}
	}
	t.Fatalf("the host's report has no BitLocker view of %s", id)
	return ""
}
