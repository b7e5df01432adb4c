//go:build integration

// Package devcloudtest connects integration tests to the local cloud of
// devcloud/. When the cloud is not reachable the tests fail, saying how to
// start it: they never skip.
package devcloudtest

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/flavors"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/imagedata"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"

	"github.com/vtpmctl/vtpmctl/internal/cloud"
)

// Dir is the devcloud's state directory (devcloud/lib.sh's DEVCLOUD_DIR).
func Dir() string {
	if d := os.Getenv("DEVCLOUD_DIR"); d != "" {
		return d
	}
	return "/var/tmp/vtpmctl-devcloud"
}

// LibvirtURI reaches the devcloud's private libvirtd.
func LibvirtURI() string {
	return "qemu+unix:///system?socket=" + filepath.Join(Dir(), "run/libvirt/libvirt-sock")
}

var checkOnce sync.Once
var checkErr error

// Require fails the test when the devcloud is not up, and points the
// process at its clouds.yaml.
func Require(t testing.TB) {
	t.Helper()
	checkOnce.Do(func() {
		cy := filepath.Join(Dir(), "clouds.yaml")
		if _, err := os.Stat(cy); err != nil {
			checkErr = fmt.Errorf("no %s", cy)
			return
		}
		os.Setenv("OS_CLIENT_CONFIG_FILE", cy)
		c := http.Client{Timeout: 5 * time.Second}
		for _, u := range []string{"http://127.0.0.1:5000/v3", "http://127.0.0.1:8774/", "http://127.0.0.1:9292/", "http://127.0.0.1:9311/", "http://127.0.0.1:8778/"} {
			resp, err := c.Get(u)
			if err != nil {
				checkErr = err
				return
			}
			resp.Body.Close()
		}
	})
	if checkErr != nil {
		t.Fatalf("the local cloud is not reachable (%v): start it with `make devcloud-up` (as root; see docs/development.md)", checkErr)
	}
}

// Connect opens a session as one of the devcloud clouds (devcloud-admin,
// devcloud-demo, devcloud-demo2, devcloud-other).
func Connect(t testing.TB, name string) *cloud.Session {
	t.Helper()
	Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := cloud.Connect(ctx, cloud.Options{Cloud: name, Timeout: time.Minute})
	if err != nil {
		t.Fatalf("connect %s: %v", name, err)
	}
	return s
}

// Unique gives a name no other test run uses.
func Unique(prefix string) string {
	return fmt.Sprintf("%s-%d-%d", prefix, os.Getpid(), time.Now().UnixNano()%1e6)
}

var tinyOnce sync.Once
var tinyImage []byte
var tinyErr error

// TinyQcow2 is an empty 64 MiB qcow2 disk (about 200 KiB): a guest boots
// into SeaBIOS/OVMF and finds nothing, which is all a vTPM test needs.
func TinyQcow2(t testing.TB) []byte {
	t.Helper()
	tinyOnce.Do(func() {
		p := filepath.Join(os.TempDir(), fmt.Sprintf("vtpmctl-tiny-%d.qcow2", os.Getpid()))
		out, err := exec.Command("qemu-img", "create", "-f", "qcow2", p, "64M").CombinedOutput()
		if err != nil {
			tinyErr = fmt.Errorf("qemu-img: %v: %s", err, out)
			return
		}
		defer os.Remove(p)
		tinyImage, tinyErr = os.ReadFile(p)
	})
	if tinyErr != nil {
		t.Fatal(tinyErr)
	}
	return tinyImage
}

// CreateImage uploads the tiny disk as a public image with properties and
// deletes it when the test ends (glance must be an admin's).
func CreateImage(t testing.TB, glance *gophercloud.ServiceClient, name string, props map[string]string) string {
	return CreateImageAs(t, glance, name, images.ImageVisibilityPublic, "", props)
}

// CreateImageAs creates an image with a visibility ("" = Glance's default,
// shared) and, for an admin, an owner project.
func CreateImageAs(t testing.TB, glance *gophercloud.ServiceClient, name string, vis images.ImageVisibility, owner string, props map[string]string) string {
	t.Helper()
	ctx := context.Background()
	all := map[string]string{}
	for k, v := range props {
		all[k] = v
	}
	if owner != "" {
		all["owner"] = owner // a core attribute; Glance lets an admin set it
	}
	opts := images.CreateOpts{Name: name, DiskFormat: "qcow2", ContainerFormat: "bare", Properties: all}
	if vis != "" {
		opts.Visibility = &vis
	}
	img, err := images.Create(ctx, glance, opts).Extract()
	if err != nil {
		t.Fatalf("create image %s: %v", name, err)
	}
	t.Cleanup(func() { images.Delete(context.Background(), glance, img.ID) })
	if err := imagedata.Upload(ctx, glance, img.ID, bytes.NewReader(TinyQcow2(t))).ExtractErr(); err != nil {
		t.Fatalf("upload image %s: %v", name, err)
	}
	return img.ID
}

// CreateFlavor creates a 64 MiB flavor with extra specs written at
// microversion 2.1, where Nova stores any value unvalidated — the way bad
// values reach real clouds.
func CreateFlavor(t testing.TB, compute *gophercloud.ServiceClient, name string, specs map[string]string) string {
	t.Helper()
	return CreateFlavorSized(t, compute, name, 1, specs)
}

// CreateFlavorSized is CreateFlavor with vcpus vCPUs (a resize target).
func CreateFlavorSized(t testing.TB, compute *gophercloud.ServiceClient, name string, vcpus int, specs map[string]string) string {
	t.Helper()
	return createFlavor(t, compute, name, 64, vcpus, specs)
}

// FirmwareRAM is the memory a guest needs for OVMF to run to its boot
// manager under TCG (at 64 MiB it never gets there, and so never reads
// or writes its variable store).
const FirmwareRAM = 512

// CreateFirmwareFlavor is CreateFlavor with FirmwareRAM: for the tests
// whose guests' firmware must run (NVRAM, Secure Boot).
func CreateFirmwareFlavor(t testing.TB, compute *gophercloud.ServiceClient, name string, specs map[string]string) string {
	t.Helper()
	return createFlavor(t, compute, name, FirmwareRAM, 1, specs)
}

func createFlavor(t testing.TB, compute *gophercloud.ServiceClient, name string, ramMiB, vcpus int, specs map[string]string) string {
	t.Helper()
	ctx := context.Background()
	c := *compute
	c.Microversion = "2.1"
	pub := true
	f, err := flavors.Create(ctx, &c, flavors.CreateOpts{Name: name, RAM: ramMiB, VCPUs: vcpus, Disk: gophercloud.IntToPointer(1), IsPublic: &pub}).Extract()
	if err != nil {
		t.Fatalf("create flavor %s: %v", name, err)
	}
	t.Cleanup(func() { flavors.Delete(context.Background(), &c, f.ID) })
	if len(specs) > 0 {
		if _, err := flavors.CreateExtraSpecs(ctx, &c, f.ID, flavors.ExtraSpecsOpts(specs)).Extract(); err != nil {
			t.Fatalf("extra specs on %s: %v", name, err)
		}
	}
	return f.ID
}

// DomainXML reads a guest's libvirt XML from the devcloud's libvirtd.
func DomainXML(t testing.TB, instanceName string) string {
	t.Helper()
	out, err := exec.Command("virsh", "-c", LibvirtURI(), "dumpxml", instanceName).CombinedOutput()
	if err != nil {
		t.Fatalf("virsh dumpxml %s: %v: %s", instanceName, err, strings.TrimSpace(string(out)))
	}
	return string(out)
}

// Release is the release of the cloud under test: DEVCLOUD_RELEASE, set by
// `make integration` for each cloud in RELEASES; zed (the native bookworm
// cloud) by default.
func Release() string {
	if r := os.Getenv("DEVCLOUD_RELEASE"); r != "" {
		return r
	}
	return "zed"
}

// Root is the chroot a newer release's cloud runs in ("" for zed): its
// config files name paths inside it, as on a real compute host.
func Root() string { return os.Getenv("DEVCLOUD_ROOT") }

// InRoot is a path the cloud's config names, as this test process sees it.
func InRoot(p string) string { return filepath.Join(Root(), p) }

// ConfDir is the devcloud's state directory as its own config names it.
func ConfDir() string {
	if Root() == "" {
		return Dir()
	}
	return "/var/tmp/vtpmctl-devcloud"
}

// notForRelease starts the skip message testsummary counts as "not
// applicable", apart from real skips.
const notForRelease = "not for this release: "

// Only runs the test on the named releases (zed, 2025.1, 2026.1, 2026.2);
// on any other cloud it is reported as not applicable, never as passed.
func Only(t testing.TB, releases ...string) {
	t.Helper()
	for _, r := range releases {
		if r == Release() {
			return
		}
	}
	NotFor(t, "applies to "+strings.Join(releases, ", "))
}

// NotFor reports the test as not applicable to this cloud (why says
// which releases it applies to), never as passed.
func NotFor(t testing.TB, why string) {
	t.Helper()
	t.Skipf("%s%s; this cloud is %s", notForRelease, why, Release())
}

// RestartCompute restarts the cloud's libvirt nova-compute through
// devcloud/restart-compute.sh (inside the chroot for a newer release).
func RestartCompute(t testing.TB, args ...string) {
	t.Helper()
	repo := filepath.Join("..", "..")
	cmd := exec.Command("bash", append([]string{filepath.Join(repo, "devcloud", "restart-compute.sh")}, args...)...)
	if Release() != "zed" {
		cmd = exec.Command("bash", append([]string{filepath.Join(repo, "devcloud", "release.sh"), Release(), "restart-compute"}, args...)...)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("restart-compute %v: %v\n%s", args, err, out)
	}
}
