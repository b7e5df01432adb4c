//go:build integration

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"

	"github.com/vtpmctl/vtpmctl/app/secureboot"
	"github.com/vtpmctl/vtpmctl/app/secureboot/sbtest"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/uefi"
	"github.com/vtpmctl/vtpmctl/internal/devcloudtest"
)

// oldTemplate is Debian bookworm's Secure Boot variable template (make
// ovmf installs it on the test machine): it enrols Microsoft's 2011
// certificates only, as every guest created before its host had a 2023
// template did.
const oldTemplate = "/usr/share/OVMF/OVMF_VARS_4M.ms.fd"

// TestIntegrationSecureBootUpdate: a Secure Boot vTPM guest is given the
// NVRAM of a guest created before its host's firmware update (a store of
// the 2011-only template), stopped, and `host secure-boot update
// --server` is run on its compute, as an operator would there. Where the
// host's Nova keeps NVRAM (host check's NVRAM-KEPT), the store gains the
// four 2023 certificates and keeps the 2011 ones through the next start,
// the TPM's endorsement key is the one it had, and the guest is ACTIVE;
// where Nova recreates NVRAM from the template (2025.1's 31.0.0), the
// command refuses with its reason and the file is untouched.
func TestIntegrationSecureBootUpdate(t *testing.T) {
	// 2026.1 keeps NVRAM as 2026.2 does, zed recreates it as 2025.1 does
	devcloudtest.Only(t, "2025.1", "2026.2")
	start := time.Now()
	ctx := context.Background()
	h := newHarness(t)
	host := devcloudtest.CloudHost(t)
	kept := bugCheck(t, h, "NVRAM-KEPT").Status == hostcheck.Pass
	old, err := os.ReadFile(oldTemplate)
	if err != nil {
		t.Fatalf("the 2011-only template (make ovmf installs it): %v", err)
	}

	imageClient, acompute, _ := testClients(t)
	admin := devcloudtest.Connect(t, "devcloud-admin")
	boot, _ := admin.Compute()
	boot.Microversion = "2.74" // "host": the cloud's own compute
	img := devcloudtest.CreateImage(t, imageClient, devcloudtest.Unique("sb23-img"), map[string]string{
		"hw_firmware_type": "uefi", "os_secure_boot": "required", "hw_machine_type": "q35", "os_shutdown_timeout": "0"})
	specs := map[string]string{"hw:tpm_version": "2.0", "hw:tpm_model": "tpm-crb"}
	hostMode := cloudRelease(t).HasSecretSecurity()
	if hostMode { // the EK can be read back from a host-mode guest's state
		specs["hw:tpm_secret_security"] = "host"
	}
	flv := devcloudtest.CreateFirmwareFlavor(t, acompute, devcloudtest.Unique("sb23-flv"), specs)
	s, err := servers.Create(ctx, boot, createOnHost{servers.CreateOpts{Name: devcloudtest.Unique("sb23"), ImageRef: img, FlavorRef: flv,
		Networks: "none"}, host.Name}, nil).Extract()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteAndWait(boot, s.ID) })
	waitServer(t, boot, s.ID, "ACTIVE", host.Name)
	serverAction(t, boot, s.ID, "os-stop")
	waitServer(t, boot, s.ID, "SHUTOFF", host.Name)

	nv := host.NVRAM(t, s.ID)
	own := host.ReadHostFile(t, nv.Template)
	if !nv.Secure || own == nil {
		t.Fatalf("domain of %s: loader secure=%v, template %q", s.ID, nv.Secure, nv.Template)
	}
	if len(own) != len(old) {
		t.Fatalf("the host's template %s is %d bytes, bookworm's 2011-only one %d: not the same firmware build", nv.Template, len(own), len(old))
	}
	var ek string
	if hostMode {
		ek = host.ReadTPM(t, s.ID).EK
	}
	t.Logf("%s: the host's own template %s enrols %s; the guest is given the NVRAM of one created before the host's firmware update: bookworm's %s (from the test machine), which enrols %s",
		devcloudtest.Release(), nv.Template, certsIn(t, own), oldTemplate, certsIn(t, old))
	d := "/var/tmp/vtpmctl-devcloud"
	update := func() ([]byte, []byte, int, time.Duration) {
		// the devcloud's nova-compute config and private libvirtd, as host
		// check is run on each compute (hostCheckArgs)
		t0 := time.Now()
		out, stderr, code := host.RunCLIExit(t, "host", "secure-boot", "update", "--server", s.ID, "--bitlocker-suspended", "--yes", "-f", "json",
			"--nova-conf", d+"/etc/nova/nova-cpu.conf", "--libvirt-uri", "qemu+unix:///system?socket="+d+"/run/libvirt/libvirt-sock")
		return out, stderr, code, time.Since(t0)
	}
	if !kept {
		host.OverwriteHostFile(t, nv.Path, old)
		_, stderr, code, _ := update()
		after := host.ReadHostFile(t, nv.Path)
		msg := strings.TrimSpace(string(stderr))
		if code != 2 || !strings.Contains(msg, "recreates every guest's NVRAM from the template") || !bytes.Equal(after, old) {
			t.Fatalf("%s recreates NVRAM from the template: want a refusal (exit 2) saying so and the file untouched; exit %d, file changed %v\n%s",
				devcloudtest.Release(), code, !bytes.Equal(after, old), msg)
		}
		t.Logf("%s: refused (exit 2, file untouched): %s", devcloudtest.Release(), msg)
		return
	}

	// 1. A store the firmware would reclaim at its next boot (flash
	// written past its end of records, as a write torn mid-record
	// leaves it) is refused, untouched; one boot lets the firmware
	// repair it.
	dirty := bytes.Clone(old)
	fw0, err := uefi.ViewAsFirmware(dirty)
	if err != nil {
		t.Fatal(err)
	}
	dirty[fw0.LastVariable+200] = 0
	host.OverwriteHostFile(t, nv.Path, dirty)
	_, stderr, code, _ := update()
	if got := host.ReadHostFile(t, nv.Path); code != 2 || !bytes.Equal(got, dirty) || !strings.Contains(string(stderr), "one boot of the guest lets the firmware repair it") {
		t.Fatalf("a store the firmware reclaims at boot: exit %d, file changed %v; want exit 2, untouched, saying a boot repairs it\n%s", code, !bytes.Equal(got, dirty), stderr)
	}
	repaired := bootFirmware(t, boot, host, s.ID, nv.Path, dirty)
	if fw, err := uefi.ViewAsFirmware(repaired); err != nil {
		t.Fatalf("after one boot: %v", err)
	} else if ok, why := fw.Settled(); !ok {
		t.Fatalf("after one boot the firmware left a store that is still unsettled: %s", why)
	}
	t.Logf("%s: a store to be reclaimed at boot was refused (exit 2, untouched); one boot later the firmware had reclaimed it", devcloudtest.Release())

	// 2. The same guest's store with an interrupted write (a header whose
	// State is still 0xFF) after its last record: updated where the
	// firmware looks.
	remnant, err := sbtest.WithRemnant(repaired)
	if err != nil {
		t.Fatal(err)
	}
	host.OverwriteHostFile(t, nv.Path, remnant)
	out, stderr, code, took := update()
	after := host.ReadHostFile(t, nv.Path)
	var res secureboot.UpdateResult
	if err := json.Unmarshal(out, &res); err != nil || len(res.Files) != 1 {
		t.Fatalf("update on %s: exit %d, JSON %v:\n%s\n%s", host.Name, code, err, out, stderr)
	}
	f := res.Files[0]
	if code != 0 || len(f.Added) != 4 || f.Backup == "" {
		t.Fatalf("update on %s: exit %d, %d certificate(s) added, backup %q\n%s", host.Name, code, len(f.Added), f.Backup, out)
	}
	t.Cleanup(func() { host.RemoveHostFile(t, f.Backup) }) // deleting the server leaves it
	checkBoth(t, "after the update", after)

	// 3. The firmware boots it, reads it and writes its own variables
	// into it: the store it leaves holds KEK and db as written.
	started := bootFirmware(t, boot, host, s.ID, nv.Path, after)
	checkBoth(t, "after the firmware ran", started)
	if err := sbtest.SecureBootKept(after, started); err != nil {
		t.Error(err)
	}
	w, _ := uefi.ViewAsFirmware(after)
	fw2, _ := uefi.ViewAsFirmware(started)
	if hostMode {
		if now := host.ReadTPM(t, s.ID).EK; now != ek {
			t.Errorf("the EK after the update and start (%s…) is not the one before (%s…): the TPM state was not kept", now[:16], ek[:16])
		}
	}
	t.Logf("%s: updated in %.2fs over an interrupted-write remnant: NVRAM records %d → %d bytes of %d (compacted %v), backup %s; the firmware booted on it, wrote %d bytes of its own, kept the 2011 and 2023 entries; EK compared (host mode) %v (%.0fs in all)",
		devcloudtest.Release(), took.Seconds(), f.BytesBefore, f.BytesAfter, f.StoreSize, f.Compacted, f.Backup, fw2.LastVariable-w.LastVariable, hostMode, time.Since(start).Seconds())
}

// bootFirmware starts the stopped guest, waits until its firmware has
// reached its boot manager (the guest's console says so: "No bootable
// option", there being no OS), stops it and returns the store it left.
// Stopping a guest is a power-off (os_shutdown_timeout 0): stopped while
// the firmware still writes (a reclaim goes through its fault-tolerant
// write), the store would be caught half-way. Where the console cannot
// be read, the firmware is taken as done once the store has changed,
// stands settled and has not moved for 20 s.
func bootFirmware(t *testing.T, boot *gophercloud.ServiceClient, host devcloudtest.ComputeHost, id, path string, was []byte) []byte {
	t.Helper()
	serverAction(t, boot, id, "os-start")
	waitServer(t, boot, id, "ACTIVE", host.Name)
	waitFirmwareIdle(t, boot, host, id, path, was)
	serverAction(t, boot, id, "os-stop")
	waitServer(t, boot, id, "SHUTOFF", host.Name)
	return host.ReadHostFile(t, path)
}

// waitFirmwareIdle waits, for at most 5 minutes, until the running
// guest's firmware is done with its store: the console shows its boot
// manager ("No bootable option": the image has no OS) and the store has
// stood settled and unchanged for 5 s; where the console cannot be read,
// the store has changed from was, stands settled and has not moved for
// 20 s. A stop is a power-off: before this, it can land mid-write.
func waitFirmwareIdle(t *testing.T, boot *gophercloud.ServiceClient, host devcloudtest.ComputeHost, id, path string, was []byte) {
	t.Helper()
	start := time.Now()
	deadline := start.Add(5 * time.Minute)
	var last []byte
	lastChange := time.Now()
	for {
		now := host.ReadHostFile(t, path)
		if !bytes.Equal(now, last) {
			last, lastChange = now, time.Now()
		}
		fw, ferr := uefi.ViewAsFirmware(now)
		quiet := ferr == nil && settled(fw)
		out, cerr := servers.ShowConsoleOutput(context.Background(), boot, id, servers.ShowConsoleOutputOpts{Length: 200}).Extract()
		if cerr == nil && strings.Contains(out, "No bootable option") && quiet && time.Since(lastChange) > 5*time.Second {
			t.Logf("the firmware reached its boot manager after %.0fs (console)", time.Since(start).Seconds())
			return
		}
		if cerr != nil && quiet && !bytes.Equal(now, was) && time.Since(lastChange) > 20*time.Second {
			t.Logf("the firmware's store settled after %.0fs (no console: %v)", time.Since(start).Seconds(), cerr)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the firmware did not reach its boot manager in 5 minutes (store changed: %v, settled: %v; console: %v)", !bytes.Equal(now, was), quiet, cerr)
		}
		time.Sleep(time.Second)
	}
}

func settled(v *uefi.FirmwareView) bool { ok, _ := v.Settled(); return ok }

// certsIn names what a store enrols (hostcheck's class).
func certsIn(t *testing.T, file []byte) string {
	t.Helper()
	c, _ := hostcheck.CertsOf("nvram", secureBootOf(t, file), nil)
	return string(c)
}

// checkBoth: KEK and db hold Microsoft's 2011 and 2023 certificates.
func checkBoth(t *testing.T, when string, file []byte) {
	t.Helper()
	sb := secureBootOf(t, file)
	for _, c := range uefi.Microsoft2023() {
		db := sb.KEK
		if c.Variable == "db" {
			db = sb.DB
		}
		if !db.Has(c.Subject) {
			t.Errorf("%s: %s lacks %s", when, c.Variable, c.Subject)
		}
	}
	for _, want := range []struct{ db, cn string }{{"KEK", "Microsoft Corporation KEK CA 2011"}, {"db", "Microsoft Windows Production PCA 2011"}, {"db", "Microsoft Corporation UEFI CA 2011"}} {
		db := sb.KEK
		if want.db == "db" {
			db = sb.DB
		}
		if !db.Has(want.cn) {
			t.Errorf("%s: %s lost %s", when, want.db, want.cn)
		}
	}
	if sb.PK == nil || len(sb.PK.Certificates) != 1 {
		t.Errorf("%s: the PK is gone", when)
	}
	if !strings.Contains(certsIn(t, file), "2023") {
		t.Errorf("%s: the store's class is %s, want 2023", when, certsIn(t, file))
	}
}
