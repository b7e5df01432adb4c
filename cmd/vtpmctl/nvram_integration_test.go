//go:build integration

package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/uefi"
	"github.com/vtpmctl/vtpmctl/internal/devcloudtest"
)

// markerVendor owns the variables the test writes into a guest's NVRAM.
var markerVendor = uefi.MustGUID("5b1a5e5e-7a7a-4c4c-9d9d-000000000023")

// TestIntegrationNVRAM: a UEFI Secure Boot vTPM guest on the cloud's own
// libvirt host; with the guest stopped, a marker variable is written into
// its NVRAM file through the host, then the guest is started (os-start) or
// hard-rebooted. A Nova with bug 2131730/1633447 undefines the domain with
// its NVRAM and libvirt copies the template again: the marker is gone.
// What happens must be what `host check`'s NVRAM-KEPT said, decided from
// the installed Nova code before the guest existed.
func TestIntegrationNVRAM(t *testing.T) {
	start := time.Now()
	ctx := context.Background()
	h := newHarness(t)
	host := devcloudtest.CloudHost(t)

	check := bugCheck(t, h, "NVRAM-KEPT")
	predictKept := check.Status == hostcheck.Pass

	imageClient, acompute, _ := testClients(t)
	admin := devcloudtest.Connect(t, "devcloud-admin")
	boot, _ := admin.Compute()
	boot.Microversion = "2.74" // "host": the cloud's own compute, never a second one
	// The image has no OS: os_shutdown_timeout=0 makes a stop a power-off
	// instead of a 60 s wait for ACPI.
	img := devcloudtest.CreateImage(t, imageClient, devcloudtest.Unique("nvram-img"), map[string]string{
		"hw_firmware_type": "uefi", "os_secure_boot": "required", "hw_machine_type": "q35", "os_shutdown_timeout": "0"})
	// 512 MiB: the firmware runs to its boot manager and writes its own
	// variables, so a kept store is one the firmware read. A stop is a
	// power-off: the test waits for the firmware to be idle before each
	// stop and each read (waitFirmwareIdle).
	flv := devcloudtest.CreateFirmwareFlavor(t, acompute, devcloudtest.Unique("nvram-flv"), map[string]string{"hw:tpm_version": "2.0", "hw:tpm_model": "tpm-crb"})
	s, err := servers.Create(ctx, boot, createOnHost{servers.CreateOpts{Name: devcloudtest.Unique("nvram"), ImageRef: img, FlavorRef: flv,
		Networks: "none"}, host.Name}, nil).Extract()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteAndWait(boot, s.ID) })
	waitServer(t, boot, s.ID, "ACTIVE", host.Name)
	booted := time.Since(start)

	nv := host.NVRAM(t, s.ID)
	waitFirmwareIdle(t, boot, host, s.ID, nv.Path, nil)
	first := host.ReadHostFile(t, nv.Path)
	tmpl := host.ReadHostFile(t, nv.Template)
	if !nv.Secure || first == nil || tmpl == nil {
		t.Fatalf("domain of %s: loader secure=%v, NVRAM %s (%d bytes), template %q (%d bytes)", s.ID, nv.Secure, nv.Path, len(first), nv.Template, len(tmpl))
	}
	if enrolled := secureBootOf(t, first); enrolled.PK == nil || len(enrolled.PK.Certificates) != 1 {
		t.Fatalf("%s: the guest's NVRAM enrols no PK: not a Secure Boot template's copy", nv.Path)
	}
	t.Logf("%s: NVRAM %s from %s (sha256 %s, template %s)", devcloudtest.Release(), nv.Path, nv.Template, short(first), short(tmpl))

	rows := []string{fmt.Sprintf("| %s | (host check) | NVRAM-KEPT %s | %s |", devcloudtest.Release(), check.Status, check.Message)}
	for i, op := range []struct {
		name string
		body map[string]any
	}{
		{"stop, start", map[string]any{"os-start": nil}},
		{"stop, hard reboot", map[string]any{"reboot": map[string]any{"type": "HARD"}}},
	} {
		waitFirmwareIdle(t, boot, host, s.ID, nv.Path, nil)
		serverAction(t, boot, s.ID, "os-stop")
		waitServer(t, boot, s.ID, "SHUTOFF", host.Name)
		// A name per operation: a kept NVRAM still has the earlier ones.
		marker := uefi.Variable{Name: fmt.Sprintf("VtpmctlMarker%d", i), Vendor: markerVendor, Attributes: 0x7, // NV|BS|RT
			Data: []byte(fmt.Sprintf("written by vtpmctl's test before %q at %s", op.name, time.Now().UTC().Format(time.RFC3339)))}
		before := host.ReadHostFile(t, nv.Path)
		written, err := uefi.AppendVariable(before, marker)
		if err != nil {
			t.Fatalf("%s: %v", nv.Path, err)
		}
		host.OverwriteHostFile(t, nv.Path, written)
		if !hasMarker(t, host.ReadHostFile(t, nv.Path), marker) {
			t.Fatalf("the marker written into %s does not read back", nv.Path)
		}
		t0 := time.Now()
		if got := action(t, boot, s.ID, op.body); got.status != 202 {
			t.Fatalf("%s: HTTP %d %s", op.name, got.status, got.message)
		}
		waitServer(t, boot, s.ID, "ACTIVE", host.Name)
		waitFirmwareIdle(t, boot, host, s.ID, nv.Path, written)
		after := host.ReadHostFile(t, nv.Path)
		kept := after != nil && hasMarker(t, after, marker)
		what := "kept (marker there)"
		if !kept {
			what = "reset (marker gone"
			if bytes.Equal(after, tmpl) {
				what += ", file equals the template"
			}
			what += ")"
		}
		rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s, %.1fs |", devcloudtest.Release(), op.name, keptWord(predictKept), what, time.Since(t0).Seconds()))
		if kept != predictKept {
			t.Errorf("%s on %s: NVRAM %s, host check's NVRAM-KEPT said %s (%s)", op.name, devcloudtest.Release(), what, keptWord(predictKept), check.Message)
		}
		if enrolled := secureBootOf(t, after); enrolled.PK == nil {
			t.Errorf("after %s the NVRAM enrols no PK", op.name)
		}
	}
	t.Logf("\n| release | operation | predicted | NVRAM after |\n|---|---|---|---|\n%s\n(guest ACTIVE after %.1fs; %.0fs in all)",
		strings.Join(rows, "\n"), booted.Seconds(), time.Since(start).Seconds())
}

func keptWord(kept bool) string {
	if kept {
		return "kept"
	}
	return "reset"
}

func hasMarker(t *testing.T, file []byte, m uefi.Variable) bool {
	t.Helper()
	s, err := uefi.ReadVarStore(file)
	if err != nil {
		t.Fatalf("NVRAM: %v", err)
	}
	v, ok := s.Get(m.Name, m.Vendor)
	return ok && bytes.Equal(v.Data, m.Data)
}

func secureBootOf(t *testing.T, file []byte) *uefi.SecureBoot {
	t.Helper()
	s, err := uefi.ReadVarStore(file)
	if err != nil {
		t.Fatalf("NVRAM: %v", err)
	}
	sb, err := s.SecureBoot()
	if err != nil {
		t.Fatalf("NVRAM: %v", err)
	}
	return sb
}

func short(b []byte) string {
	sum := sha256.Sum256(b)
	return fmt.Sprintf("%x…", sum[:8])
}

// bugCheck is the cloud's compute's host check verdict on a known-bug
// check (NVRAM-KEPT, RESIZE-REVERT, decided from the installed code); the
// test fails unless it decided: pass (fixed) or a warning naming the bug.
func bugCheck(t *testing.T, h *harness, id string) hostcheck.Check {
	t.Helper()
	r := h.run(func(streams *IOStreams) error {
		return runHostCheck(context.Background(), hostCheckOpts(streams, h.global(""), ""))
	})
	var rep hostcheck.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("host check: exit %d, JSON: %v\n%s", r.code, err, r.stderr)
	}
	c := findCheck(rep, id)
	if c.Status != hostcheck.Pass && !(c.Status == hostcheck.Warn && strings.Contains(c.Message, "carries bug")) {
		t.Fatalf("%s does not decide on the %s cloud: %s %s", id, devcloudtest.Release(), c.Status, c.Message)
	}
	return c
}
