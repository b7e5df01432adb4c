//go:build integration

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/blockstorage/v3/volumes"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"go.yaml.in/yaml/v3"

	"github.com/vtpmctl/vtpmctl/domain/migration"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/devcloudtest"
	"github.com/vtpmctl/vtpmctl/openstack/cinder"
)

// cinderReleases are the clouds devcloud/cinder.sh sets Cinder up on; on
// the others a cloud without a volume endpoint is a known gap, not a failure.
var cinderReleases = map[string]bool{"zed": true, "2025.1": true, "2026.1": true, "2026.2": true}

// TestIntegrationVolumeBackedVTPM boots a vTPM guest from a Cinder volume
// (RBD on the devcloud's Ceph, opened by QEMU's librbd): the image has no
// TPM property and the flavor no TPM spec, so the TPM can only come from
// the volume's image metadata, the one place Nova reads for a server booted
// from an existing volume.
func TestIntegrationVolumeBackedVTPM(t *testing.T) {
	imageClient, acompute, dcompute := testClients(t)
	vc := volumeClient(t, "devcloud-demo")
	ctx := context.Background()

	img := devcloudtest.CreateImage(t, imageClient, devcloudtest.Unique("bfv-img"), nil)
	flv := devcloudtest.CreateFlavor(t, acompute, devcloudtest.Unique("bfv-flv"), nil)
	vol, err := volumes.Create(ctx, vc, volumes.CreateOpts{Name: devcloudtest.Unique("bfv-vol"), Size: 1, ImageID: img}, nil).Extract()
	if err != nil {
		t.Fatalf("volume create from image: %v", err)
	}
	// Runs last (cleanups are LIFO): a volume still attached cannot go.
	t.Cleanup(func() {
		waitVolume(t, vc, vol.ID, "available", time.Minute)
		volumes.Delete(context.Background(), vc, vol.ID, volumes.DeleteOpts{})
	})
	if v := waitVolume(t, vc, vol.ID, "available", 3*time.Minute); v.Status != "available" {
		t.Fatalf("volume %s is %s, want available (logs: devcloud logs/cinder-volume.log)", vol.ID, v.Status)
	}
	meta := map[string]string{"hw_tpm_version": "2.0", "hw_tpm_model": "tpm-crb"}
	if err := volumes.SetImageMetadata(ctx, vc, vol.ID, volumes.ImageMetadataOpts{Metadata: meta}).ExtractErr(); err != nil {
		t.Fatalf("set volume image metadata: %v", err)
	}
	if v := waitVolume(t, vc, vol.ID, "available", 0); v.VolumeImageMetadata["hw_tpm_model"] != "tpm-crb" {
		t.Fatalf("volume image metadata after set: %v", v.VolumeImageMetadata)
	}

	s, err := servers.Create(ctx, dcompute, servers.CreateOpts{Name: devcloudtest.Unique("bfv"), FlavorRef: flv,
		Networks: "none", AvailabilityZone: "libvirt",
		BlockDevice: []servers.BlockDevice{{SourceType: servers.SourceVolume, DestinationType: servers.DestinationVolume,
			UUID: vol.ID, BootIndex: 0}}}, nil).Extract()
	if err != nil {
		t.Fatalf("server create from volume: %v", err)
	}
	t.Cleanup(func() { deleteAndWait(dcompute, s.ID) })
	waitActive(t, dcompute, s.ID)

	dom := parseVolumeDomain(t, devcloudtest.DomainXML(t, s.ID))
	if len(dom.TPMs) != 1 || dom.TPMs[0].Model != "tpm-crb" || dom.TPMs[0].Backend.Version != "2.0" {
		t.Errorf("domain TPMs %+v, want one tpm-crb, version 2.0 (from the volume's image metadata)", dom.TPMs)
	}
	rbd := 0
	for _, d := range dom.Disks {
		if d.Type == "network" && d.Source.Protocol == "rbd" && d.Source.Name == "volumes/volume-"+vol.ID {
			rbd++
		}
	}
	if rbd != 1 {
		t.Errorf("domain disks %+v, want one <disk type='network'> with <source protocol='rbd' name='volumes/volume-%s'>", dom.Disks, vol.ID)
	}
	if v := waitVolume(t, vc, vol.ID, "in-use", 0); v.Status != "in-use" || len(v.Attachments) != 1 || v.Attachments[0].ServerID != s.ID {
		t.Errorf("volume while the server runs: status %q, attachments %+v; want in-use, attached to %s", v.Status, v.Attachments, s.ID)
	}

	// Deleting the server frees the volume: Cinder deletes the attachment
	// only for a call with Nova's service token ([service_user]).
	deleteAndWait(dcompute, s.ID)
	if v := waitVolume(t, vc, vol.ID, "available", time.Minute); v.Status != "available" {
		t.Errorf("volume %s is %s a minute after its server was deleted, want available (nova-compute.log: ConflictNovaUsingAttachment means no service token)", vol.ID, v.Status)
	}
}

// volumeClient is the block storage client of a devcloud cloud; a cloud
// without Cinder fails the test saying how to add it.
func volumeClient(t *testing.T, cloudName string) *gophercloud.ServiceClient {
	t.Helper()
	s := devcloudtest.Connect(t, cloudName)
	c, err := openstack.NewBlockStorageV3(s.Provider, s.Endpoint)
	if err == nil {
		return c
	}
	rel := devcloudtest.Release()
	var nf *gophercloud.ErrEndpointNotFound
	if !errors.As(err, &nf) && !errors.As(err, new(gophercloud.ErrEndpointNotFound)) {
		t.Fatalf("block-storage endpoint: %v", err)
	}
	if !cinderReleases[rel] {
		t.Skipf("the %s cloud has no block-storage endpoint and devcloud/cinder.sh does not set Cinder up there yet", rel)
	}
	if rel == "zed" {
		t.Fatalf("the local cloud has no block-storage (Cinder) endpoint: start it with DEVCLOUD_CINDER=1 make devcloud-up, or devcloud/cinder.sh up on a running devcloud")
	}
	t.Fatalf("the %s cloud has no block-storage (Cinder) endpoint: devcloud/cinder.sh up %s", rel, rel)
	return nil
}

// waitVolume polls until the volume has the status (or "error"), at most d
// (0: one look).
func waitVolume(t *testing.T, c *gophercloud.ServiceClient, id, status string, d time.Duration) *volumes.Volume {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		v, err := volumes.Get(context.Background(), c, id).Extract()
		if err != nil {
			t.Fatalf("volume %s: %v", id, err)
		}
		if v.Status == status || v.Status == "error" || time.Now().After(deadline) {
			return v
		}
		time.Sleep(time.Second)
	}
}

type volumeDomain struct {
	Disks []struct {
		Type   string `xml:"type,attr"`
		Source struct {
			Protocol string `xml:"protocol,attr"`
			Name     string `xml:"name,attr"`
		} `xml:"source"`
	} `xml:"devices>disk"`
	TPMs []struct {
		Model   string `xml:"model,attr"`
		Backend struct {
			Version string `xml:"version,attr"`
		} `xml:"backend"`
	} `xml:"devices>tpm"`
}

func parseVolumeDomain(t *testing.T, domXML string) volumeDomain {
	t.Helper()
	var dom volumeDomain
	if err := xml.Unmarshal([]byte(domXML), &dom); err != nil {
		t.Fatalf("domain XML: %v", err)
	}
	return dom
}

// volumeParityCase is one boot-volume / flavor pair booted for real.
type volumeParityCase struct {
	name  string
	meta  map[string]string // set on the volume after it is created
	specs map[string]string
	blank bool // an empty volume: Cinder marks it not bootable
}

var volumeParityCases = []volumeParityCase{
	{name: "tagged-volume+plain-flavor", meta: map[string]string{"hw_tpm_version": "2.0", "hw_tpm_model": "tpm-crb"}},
	{name: "plain-volume+vtpm-flavor", specs: map[string]string{"hw:tpm_version": "2.0"}},
	// Nova cannot word this conflict for a volume: the fault is only
	// "NotImplementedError" (image_meta.name is unset), cinder.Decide.
	{name: "conflicting-model", meta: map[string]string{"hw_tpm_version": "2.0", "hw_tpm_model": "tpm-crb"}, specs: map[string]string{"hw:tpm_model": "tpm-tis"}},
	{name: "not-bootable-volume+vtpm-flavor", specs: map[string]string{"hw:tpm_version": "2.0"}, blank: true},
}

// TestIntegrationVolumeParity boots servers from existing volumes and
// compares what Nova did with `vtpmctl check --volume`; then the volume
// created before its image was tagged: Nova keeps the volume's old copy,
// image set says so, and the volume set it proposes fixes it (rerun: no
// write).
func TestIntegrationVolumeParity(t *testing.T) {
	imageClient, acompute, dcompute := testClients(t)
	vc := volumeClient(t, "devcloud-demo")
	img := devcloudtest.CreateImage(t, imageClient, devcloudtest.Unique("vparity-img"), nil)
	plain := devcloudtest.Unique("vparity-plain")
	plainID := devcloudtest.CreateFlavor(t, acompute, plain, nil)

	var mu sync.Mutex
	table := map[string][2]string{}
	record := func(name string, actual, predicted outcome) {
		mu.Lock()
		table[name] = [2]string{actual.String(), predicted.String()}
		mu.Unlock()
		if actual != predicted {
			t.Errorf("%s: Nova did %q, vtpmctl check --volume predicted %q", name, actual, predicted)
		}
	}
	t.Run("cases", func(t *testing.T) {
		for _, c := range volumeParityCases {
			c := c
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				flv, flvID := plain, plainID
				if c.specs != nil {
					flv = devcloudtest.Unique("vparity-flv")
					flvID = devcloudtest.CreateFlavor(t, acompute, flv, c.specs)
				}
				from := img
				if c.blank {
					from = ""
				}
				vol := createBootVolume(t, vc, from)
				if c.meta != nil {
					if err := cinder.SetImageMetadata(context.Background(), vc, vol, c.meta); err != nil {
						t.Fatalf("set image metadata: %v", err)
					}
				}
				predicted := predictVolume(t, vol, flv)
				record(c.name, bootVolume(t, dcompute, vc, vol, flvID), predicted)
			})
		}
		t.Run("volume-before-image-tagged", func(t *testing.T) {
			t.Parallel()
			// Its own image: tagging it must not reach the other cases' volumes.
			own := devcloudtest.CreateImage(t, imageClient, devcloudtest.Unique("vparity-late-img"), nil)
			volumeBeforeImageTagged(t, dcompute, vc, own, plain, plainID, record)
		})
	})

	names := make([]string, 0, len(table))
	for n := range table {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "| boot volume + flavor | Nova (%s) | vtpmctl check --volume |\n|---|---|---|\n", devcloudtest.Release())
	for _, n := range names {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", n, table[n][0], table[n][1])
	}
	t.Log("\n" + b.String())
	if len(table) < 6 {
		t.Fatalf("only %d combinations ran, want 6", len(table))
	}
}

// volumeBeforeImageTagged: the volume copies the image's properties at
// creation; the image tagged later gives servers booted from the volume
// no vTPM until the volume is tagged too.
func volumeBeforeImageTagged(t *testing.T, dcompute, vc *gophercloud.ServiceClient, img, flv, flvID string, record func(string, outcome, outcome)) {
	ctx := context.Background()
	vol := createBootVolume(t, vc, img)

	h := newHarness(t)
	r := h.run(func(streams *IOStreams) error {
		return runImageChange(ctx, &imageChangeOptions{IO: streams, Global: h.global("devcloud-admin"), Images: []string{img},
			propertyChange: propertyChange{Set: true, Version: "2.0", Model: "tpm-crb"}})
	})
	fix := "vtpmctl --os-cloud devcloud-admin volume set --select image_id=" + img + " --tpm-version 2.0 --tpm-model tpm-crb --all-projects"
	if r.code != 0 || !strings.Contains(r.stderr, "1 bootable volume(s) created from this image before do not carry the change") || !strings.Contains(r.stderr, fix) {
		t.Errorf("image set: exit %d, stderr %q; want the one stale volume named with %q", r.code, r.stderr, fix)
	}
	if n := countVolumeLists(r.requests); n != 1 {
		t.Errorf("image set listed volumes %d times, want one list: %v", n, r.requests)
	}
	if got := predictImage(t, img, flv); !got.vtpm {
		t.Errorf("check --image after tagging: %s, want a vTPM (the image has it)", got)
	}
	predicted := predictVolume(t, vol, flv)
	record("volume-before-image-tagged", bootVolume(t, dcompute, vc, vol, flvID), predicted)

	// The command image set proposed, as the admin it ran as.
	set := func() runResult {
		return h.run(func(streams *IOStreams) error {
			return runVolumeChange(ctx, &volumeChangeOptions{IO: streams, Global: h.global("devcloud-admin"), AllProjects: true,
				propertyChange: propertyChange{Set: true, Select: []string{"image_id=" + img}, Version: "2.0", Model: "tpm-crb", Yes: true}})
		})
	}
	waitVolume(t, vc, vol, "available", time.Minute)
	r = set()
	if r.code != 0 || len(r.writes) != 1 || !strings.HasSuffix(r.writes[0], "/volumes/"+vol+"/action") {
		t.Errorf("volume set: exit %d, writes %v (want one os-set_image_metadata): %s", r.code, r.writes, r.stderr)
	}
	if r = set(); r.code != 0 || len(r.writes) != 0 {
		t.Errorf("volume set rerun: exit %d, writes %v, want none: %s", r.code, r.writes, r.stderr)
	}
	predicted = predictVolume(t, vol, flv)
	record("volume-before-image-tagged+volume-set", bootVolume(t, dcompute, vc, vol, flvID), predicted)

	unset := func() runResult {
		return h.run(func(streams *IOStreams) error {
			return runVolumeChange(ctx, &volumeChangeOptions{IO: streams, Global: h.global("devcloud-demo"), Volumes: []string{vol}})
		})
	}
	waitVolume(t, vc, vol, "available", time.Minute)
	if r = unset(); r.code != 0 || len(r.writes) != 2 {
		t.Errorf("volume unset: exit %d, writes %v (want one os-unset_image_metadata per key): %s", r.code, r.writes, r.stderr)
	}
	if r = unset(); r.code != 0 || len(r.writes) != 0 {
		t.Errorf("volume unset rerun: exit %d, writes %v", r.code, r.writes)
	}
}

func countVolumeLists(reqs []string) int {
	n := 0
	for _, r := range reqs {
		if strings.HasSuffix(r, "/volumes/detail") {
			n++
		}
	}
	return n
}

// createBootVolume makes a 1 GiB volume from img ("": blank) as demo and deletes it
// when the test ends (after its servers: cleanups run last-in first-out).
func createBootVolume(t *testing.T, vc *gophercloud.ServiceClient, img string) string {
	t.Helper()
	vol, err := volumes.Create(context.Background(), vc, volumes.CreateOpts{Name: devcloudtest.Unique("vparity-vol"), Size: 1, ImageID: img}, nil).Extract()
	if err != nil {
		t.Fatalf("volume create from image: %v", err)
	}
	t.Cleanup(func() {
		waitVolume(t, vc, vol.ID, "available", time.Minute)
		volumes.Delete(context.Background(), vc, vol.ID, volumes.DeleteOpts{})
	})
	if v := waitVolume(t, vc, vol.ID, "available", 3*time.Minute); v.Status != "available" {
		t.Fatalf("volume %s is %s, want available", vol.ID, v.Status)
	}
	return vol.ID
}

// bootVolume boots a server from an existing volume as demo and reports
// what Nova did; the server is deleted (and the volume free again) before
// it returns, so the next boot can use the volume.
func bootVolume(t *testing.T, c, vc *gophercloud.ServiceClient, vol, flavorID string) outcome {
	t.Helper()
	ctx := context.Background()
	s, err := servers.Create(ctx, c, servers.CreateOpts{Name: devcloudtest.Unique("vparity"), FlavorRef: flavorID,
		Networks: "none", AvailabilityZone: "libvirt",
		BlockDevice: []servers.BlockDevice{{SourceType: servers.SourceVolume, DestinationType: servers.DestinationVolume, UUID: vol, BootIndex: 0}}}, nil).Extract()
	if err != nil {
		var code gophercloud.ErrUnexpectedResponseCode
		if errors.As(err, &code) && code.Actual == 400 {
			return outcome{errMsg: badRequestMessage(code.Body), atCreate: true}
		}
		t.Fatalf("server create from volume: %v", err)
	}
	t.Cleanup(func() { deleteAndWait(c, s.ID) })
	defer func() {
		deleteAndWait(c, s.ID)
		waitVolume(t, vc, vol, "available", time.Minute)
	}()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		if s, err = servers.Get(ctx, c, s.ID).Extract(); err != nil {
			t.Fatalf("server show: %v", err)
		}
		if s.Status == "ACTIVE" || s.Status == "ERROR" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server %s still %s after 5 minutes", s.ID, s.Status)
		}
		time.Sleep(time.Second)
	}
	if s.Status == "ERROR" {
		return outcome{errMsg: s.Fault.Message}
	}
	return domainTPM(t, devcloudtest.DomainXML(t, s.ID))
}

// predictVolume runs `vtpmctl check --volume --flavor` as demo.
func predictVolume(t *testing.T, vol, flavor string) outcome {
	return checkOutcome(t, "--volume", vol, flavor)
}

func predictImage(t *testing.T, img, flavor string) outcome {
	return checkOutcome(t, "--image", img, flavor)
}

func checkOutcome(t *testing.T, flag, ref, flavor string) outcome {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"vtpmctl", "--os-cloud", "devcloud-demo", "check", flag, ref, "--flavor", flavor, "-f", "json"},
		&IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb})
	if code != 0 && code != 1 {
		t.Fatalf("vtpmctl check %s exited %d: %s", flag, code, errb.String())
	}
	var r struct {
		VTPM      bool   `json:"vtpm"`
		Version   string `json:"version"`
		Model     string `json:"model"`
		Error     string `json:"error"`
		ErrorWhen string `json:"error_when"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("check output is not JSON: %v\n%s", err, out.String())
	}
	if (code == 1) != (r.Error != "") {
		t.Errorf("check %s: exit %d does not match error %q", flag, code, r.Error)
	}
	return outcome{vtpm: r.VTPM, version: firstWord(r.Version), model: firstWord(r.Model), errMsg: r.Error,
		atCreate: strings.Contains(r.ErrorWhen, "HTTP 400 at server create")}
}

// TestIntegrationVolumeAudits: the follow-up pass after a migration tool
// landed a VM on a volume. plan apply finds the volume by the plan
// image's name and writes the vTPM the plan promised into its image
// metadata (a rerun writes nothing); a server booted from it with a plain
// flavor gets its vTPM from the volume only, and every audit counts it:
// plan verify (matched by the volume's vtpmctl:source, vTPM from the boot
// volume), secrets audit (evidence volume, its secret checked), hosts
// audit (an at-risk guest of its host) and the report's page.
func TestIntegrationVolumeAudits(t *testing.T) {
	imageClient, acompute, dcompute := testClients(t)
	vc := volumeClient(t, "devcloud-demo")
	h := newHarness(t)
	ctx := context.Background()

	img := devcloudtest.CreateImage(t, imageClient, devcloudtest.Unique("vaudit-img"), nil)
	plain := devcloudtest.Unique("vaudit-plain")
	plainID := devcloudtest.CreateFlavor(t, acompute, plain, nil)
	volID := createBootVolume(t, vc, img)
	v := waitVolume(t, vc, volID, "available", 0)

	// The plan names the converted disk as its image; the tool landed it
	// on this volume under that name.
	vmName := devcloudtest.Unique("vaudit-vm")
	// The source booted EFI with Secure Boot: the plan promises UEFI, q35
	// and Secure Boot on the volume, and plan verify checks all three there.
	p := migration.Plan{Version: 1, Images: []migration.PlanImage{{Name: v.Name, TPMVersion: "2.0", TPMModel: "tpm-crb",
		Properties: map[string]string{"hw_firmware_type": "uefi", "hw_machine_type": "q35", "os_secure_boot": "required"}}},
		VMs: []migration.PlanVM{{Name: vmName, BIOSUUID: "4211" + vmName, GuestOS: "Microsoft Windows Server 2022", Firmware: "efi", SecureBoot: "yes",
			SourceVTPM: "yes", VCPUs: 1, RAM: 512, TargetImage: v.Name, TargetVTPM: "2.0 tpm-crb"}}}
	b, err := yaml.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	planFile := filepath.Join(t.TempDir(), "plan.yaml")
	if err := os.WriteFile(planFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	apply := func() runResult {
		return h.run(func(streams *IOStreams) error {
			return runPlanApply(ctx, &planApplyOptions{IO: streams, Global: h.global("devcloud-demo"), File: planFile, Yes: true}, true)
		})
	}
	r := apply()
	if r.code != 0 || len(r.writes) != 1 || !strings.HasSuffix(r.writes[0], "/volumes/"+volID+"/action") || strings.Contains(r.stderr, "pending") {
		t.Fatalf("plan apply: exit %d, writes %v (want one os-set_image_metadata on %s): %s", r.code, r.writes, volID, r.stderr)
	}
	if r = apply(); r.code != 0 || len(r.writes) != 0 {
		t.Errorf("plan apply rerun: exit %d, writes %v, want none: %s", r.code, r.writes, r.stderr)
	}
	if md := waitVolume(t, vc, volID, "available", 0).VolumeImageMetadata; md["hw_tpm_version"] != "2.0" || md["hw_tpm_model"] != "tpm-crb" || md[migration.SourceKey] == "" ||
		md["hw_firmware_type"] != "uefi" || md["os_secure_boot"] != "required" {
		t.Fatalf("volume image metadata after plan apply: %v", md)
	}

	s, err := servers.Create(ctx, dcompute, servers.CreateOpts{Name: devcloudtest.Unique("vaudit"), FlavorRef: plainID,
		Networks: "none", AvailabilityZone: "libvirt",
		BlockDevice: []servers.BlockDevice{{SourceType: servers.SourceVolume, DestinationType: servers.DestinationVolume, UUID: volID, BootIndex: 0}}}, nil).Extract()
	if err != nil {
		t.Fatalf("server create from volume: %v", err)
	}
	t.Cleanup(func() { deleteAndWait(dcompute, s.ID) })
	waitActive(t, dcompute, s.ID)
	if dom := parseVolumeDomain(t, devcloudtest.DomainXML(t, s.ID)); len(dom.TPMs) != 1 {
		t.Fatalf("domain TPMs %+v: Nova gave the server no vTPM from its volume", dom.TPMs)
	}

	t.Run("plan verify", func(t *testing.T) {
		r := h.run(func(streams *IOStreams) error {
			return runPlanVerify(ctx, &planVerifyOptions{IO: streams, Global: h.global("devcloud-admin"), File: planFile, NoSecrets: true})
		})
		var res struct {
			VMs []struct {
				ServerID  string `json:"server_id"`
				MatchedBy string `json:"matched_by"`
				Checks    []struct {
					Check, Status, Message string
				} `json:"checks"`
			} `json:"vms"`
		}
		json.Unmarshal([]byte(r.stdout), &res)
		if r.code != 0 || len(res.VMs) != 1 || res.VMs[0].ServerID != s.ID || !strings.Contains(res.VMs[0].MatchedBy, migration.SourceKey) {
			t.Fatalf("plan verify: exit %d, %+v: %s", r.code, res.VMs, r.stderr)
		}
		// Each promise checked from the boot volume, none skipped.
		seen := map[string]bool{}
		for _, c := range res.VMs[0].Checks {
			switch c.Check {
			case migration.CheckVTPM, migration.CheckFirmware, migration.CheckSecureBoot:
				seen[c.Check] = true
				if c.Status != "pass" || (c.Check == migration.CheckVTPM && !strings.Contains(c.Message, "boot volume "+volID)) {
					t.Errorf("%s check %+v, want a pass from boot volume %s", c.Check, c, volID)
				}
			}
		}
		if len(seen) != 3 {
			t.Errorf("plan verify checked %v of VTPM, FIRMWARE, SECURE-BOOT: %+v", seen, res.VMs[0].Checks)
		}
	})

	t.Run("secrets audit", func(t *testing.T) {
		var out, errb bytes.Buffer
		code := Main(ctx, []string{"vtpmctl", "--os-cloud", "devcloud-admin", "secrets", "audit", "--all-projects", "-f", "json"}, &IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb})
		var res struct {
			Guests []struct {
				ServerID string `json:"server_id"`
				Evidence string `json:"evidence"`
				SecretID string `json:"secret_id"`
				Findings []struct {
					Check, Status string
				} `json:"findings"`
			} `json:"guests"`
			Orphans []struct {
				InstanceID string `json:"instance_id"`
			} `json:"orphans"`
		}
		if err := json.Unmarshal(out.Bytes(), &res); err != nil {
			t.Fatalf("secrets audit: exit %d, %v: %s", code, err, errb.String())
		}
		found := false
		for _, g := range res.Guests {
			if g.ServerID != s.ID {
				continue
			}
			found = true
			exists := ""
			for _, f := range g.Findings {
				if f.Check == "SECRET-EXISTS" {
					exists = f.Status
				}
			}
			if g.Evidence != "volume" || g.SecretID == "" || exists != "pass" {
				t.Errorf("secrets audit guest %+v: want evidence volume and its secret found", g)
			}
		}
		if !found {
			t.Errorf("secrets audit does not count the volume-backed guest %s: %s", s.ID, out.String())
		}
		for _, o := range res.Orphans {
			if o.InstanceID == s.ID {
				t.Errorf("the guest's secret is listed as an orphan")
			}
		}
	})

	t.Run("hosts audit", func(t *testing.T) {
		var out, errb bytes.Buffer
		code := Main(ctx, []string{"vtpmctl", "--os-cloud", "devcloud-admin", "hosts", "audit", "-f", "json"}, &IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb})
		var res struct {
			Hosts []struct {
				AtRisk []struct {
					ServerID string `json:"server_id"`
				} `json:"at_risk_guests"`
			} `json:"hosts"`
		}
		if err := json.Unmarshal(out.Bytes(), &res); err != nil {
			t.Fatalf("hosts audit: exit %d, %v: %s", code, err, errb.String())
		}
		for _, rep := range res.Hosts {
			for _, g := range rep.AtRisk {
				if g.ServerID == s.ID {
					return
				}
			}
		}
		t.Errorf("hosts audit: the volume-backed vTPM guest %s is not an at-risk guest of its host (fleet's inventory reads no volumes?)", s.ID)
	})

	t.Run("report", func(t *testing.T) {
		// The page names guests in its findings: with an upgrade to check,
		// as TestIntegrationReportInBrowser, a vTPM guest the upgrade
		// strands is one.
		to := map[string]nova.Release{"zed": nova.Dalmatian, "2025.1": nova.Gazpacho, "2026.1": nova.Hibiscus}[devcloudtest.Release()]
		if to == nova.ReleaseUnknown {
			to = cloudRelease(t)
		}
		html := filepath.Join(t.TempDir(), "report.html")
		r := h.run(func(streams *IOStreams) error {
			return runReport(ctx, &reportOptions{IO: streams, Global: h.global("devcloud-admin"), Out: html, UpgradeTo: to})
		})
		page, _ := os.ReadFile(html)
		if r.code != 0 || !strings.Contains(string(page), s.ID) {
			t.Errorf("report: exit %d, the page does not list the volume-backed vTPM guest %s (report.Build's inventory reads no volumes?): %s", r.code, s.ID, r.stderr)
		}
	})

	// Last, as it changes the volume: someone untags the boot volume of
	// the running guest. Nova read it at boot and the guest keeps its
	// vTPM; the volume now says none, and the API never shows what Nova
	// read. Its secret still finds it: evidence secret, unconfirmed
	// boot_volume_now, never a live server's orphan.
	t.Run("volume untagged after boot", func(t *testing.T) {
		var out, errb bytes.Buffer
		if code := Main(ctx, []string{"vtpmctl", "--os-cloud", "devcloud-demo", "volume", "unset", volID}, &IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb}); code != 0 {
			t.Fatalf("volume unset: exit %d: %s", code, errb.String())
		}
		out.Reset()
		code := Main(ctx, []string{"vtpmctl", "--os-cloud", "devcloud-admin", "secrets", "audit", "--all-projects", "-f", "json"}, &IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb})
		var res struct {
			Guests  []vtpmsecret.GuestResult `json:"guests"`
			Orphans []struct {
				InstanceID string `json:"instance_id"`
			} `json:"orphans"`
		}
		if err := json.Unmarshal(out.Bytes(), &res); err != nil {
			t.Fatalf("secrets audit: exit %d, %v: %s", code, err, errb.String())
		}
		var g *vtpmsecret.GuestResult
		for i := range res.Guests {
			if res.Guests[i].ServerID == s.ID {
				g = &res.Guests[i]
			}
		}
		if g == nil || g.Evidence != nova.EvidenceSecret || g.Unconfirmed != nova.UnconfirmedVolumeNow || g.SecretID == "" || g.EvidenceReason == "" {
			t.Errorf("the guest whose boot volume was untagged: %+v, want evidence secret, unconfirmed boot_volume_now", g)
		} else {
			t.Logf("untagged boot volume: evidence %s (%s): %s", g.Evidence, g.Unconfirmed, g.EvidenceReason)
		}
		for _, o := range res.Orphans {
			if o.InstanceID == s.ID {
				t.Errorf("the guest's secret is listed as an orphan")
			}
		}
	})
}
