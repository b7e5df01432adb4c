//go:build integration

package main

import (
	"context"
	"encoding/xml"
	"errors"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/blockstorage/v3/volumes"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"

	"github.com/vtpmctl/vtpmctl/internal/devcloudtest"
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
