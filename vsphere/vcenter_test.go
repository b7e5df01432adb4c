package vsphere

import (
	"context"
	"errors"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
	fakevc "github.com/vtpmctl/vtpmctl/internal/fakecloud/vcsim"

	"github.com/vmware/govmomi"
	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/vtpmctl/vtpmctl/domain/migration"
)

// vcsim starts govmomi's vCenter simulator (fakecloud/vcsim: the VPX
// model, vms VMs on its host and as many in its cluster) and logs in:
// its URL without the credentials, the credentials, a client.
func vcsim(t testing.TB, vms int) (*url.URL, string, string, *govmomi.Client) {
	t.Helper()
	u, user, pass := fakevc.Start(t, vms)
	lu := *u
	lu.User = url.UserPassword(user, pass)
	c, err := govmomi.NewClient(context.Background(), &lu, true)
	if err != nil {
		t.Fatal(err)
	}
	return u, user, pass, c
}

// shape gives a simulated VM a vTPM, EFI with Secure Boot, or BIOS.
func shape(t *testing.T, c *govmomi.Client, name string, vtpm bool, firmware string, secureBoot bool) {
	t.Helper()
	ctx := context.Background()
	vm, err := finder(t, c).VirtualMachine(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	spec := types.VirtualMachineConfigSpec{Firmware: firmware, BootOptions: &types.VirtualMachineBootOptions{EfiSecureBootEnabled: &secureBoot}}
	if vtpm {
		spec.DeviceChange = []types.BaseVirtualDeviceConfigSpec{&types.VirtualDeviceConfigSpec{
			Operation: types.VirtualDeviceConfigSpecOperationAdd, Device: &types.VirtualTPM{VirtualDevice: types.VirtualDevice{Key: -1}}}}
	}
	task, err := vm.Reconfigure(ctx, spec)
	if err == nil {
		err = task.Wait(ctx)
	}
	if err != nil {
		t.Fatalf("reconfigure %s: %v", name, err)
	}
}

func finder(t testing.TB, c *govmomi.Client) *find.Finder {
	f := find.NewFinder(c.Client, true)
	dc, err := f.DefaultDatacenter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return f.SetDatacenter(dc)
}

func markTemplate(t *testing.T, c *govmomi.Client, name string) {
	t.Helper()
	ctx := context.Background()
	vm, err := finder(t, c).VirtualMachine(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if task, err := vm.PowerOff(ctx); err == nil {
		task.Wait(ctx)
	}
	if err := vm.MarkAsTemplate(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestReadVCenter(t *testing.T) {
	u, user, pass, c := vcsim(t, 2)
	shape(t, c, "DC0_H0_VM0", true, "efi", true)
	shape(t, c, "DC0_H0_VM1", false, "bios", false)
	markTemplate(t, c, "DC0_C0_RP0_VM1")
	vms, skipped, st, err := ReadVCenter(context.Background(), VCenter{URL: u.String(), Username: user, Password: pass, Insecure: true})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]migration.SourceVM{}
	for _, v := range vms {
		by[v.Name] = v
	}
	if len(vms) != 3 || len(skipped) != 1 || skipped[0].Name != "DC0_C0_RP0_VM1" || !strings.Contains(skipped[0].Reason, "template") {
		t.Fatalf("VMs %d, skipped %+v", len(vms), skipped)
	}
	v0, v1 := by["DC0_H0_VM0"], by["DC0_H0_VM1"]
	if v0.VTPM != "yes" || !strings.Contains(v0.VTPMEvidence, "VirtualTPM device") || v0.Firmware != "efi" || v0.SecureBoot == nil || !*v0.SecureBoot {
		t.Errorf("vTPM + EFI + Secure Boot: %+v", v0)
	}
	if v1.VTPM != "no" || v1.Firmware != "bios" || v1.SecureBoot == nil || *v1.SecureBoot {
		t.Errorf("BIOS, no vTPM: %+v", v1)
	}
	for _, v := range vms {
		if v.InstanceUUID == "" || v.BIOSUUID == "" || v.MoRef == "" || v.VCenterUUID == "" || v.VCPUs == 0 || v.MemoryMiB == 0 || v.VCenter != u.Hostname() {
			t.Errorf("identity and size: %+v", v)
		}
	}
	// One login, one view, one retrieval, one logout (and the view's
	// destroy): a constant, not one request per VM.
	if st.Requests > 8 {
		t.Errorf("%d requests for %d VMs", st.Requests, len(vms))
	}
}

// TestReadVCenterWrongPassword: one clear line, no password in it.
func TestReadVCenterWrongPassword(t *testing.T) {
	u, user, _, _ := vcsim(t, 1)
	_, _, _, err := ReadVCenter(context.Background(), VCenter{URL: u.String(), Username: user, Password: "s3cret-wrong", Insecure: true})
	if err == nil || strings.Contains(err.Error(), "s3cret-wrong") || strings.Contains(err.Error(), "\n") {
		t.Errorf("%v", err)
	}
}

// TestTwoVCentersSameNames: the same VM names on two vCenters stay two
// VMs, told apart by (vCenter, instance UUID), and their image names carry
// each vCenter's host name only.
func TestTwoVCentersSameNames(t *testing.T) {
	u1, user1, pass1, _ := vcsim(t, 1)
	u2, user2, pass2, _ := vcsim(t, 1)
	u2.Host = strings.Replace(u2.Host, "127.0.0.1", "localhost", 1)
	var all []migration.SourceVM
	for _, vc := range []VCenter{{URL: "https://" + u1.Host + "/sdk", Username: user1, Password: pass1, Insecure: true}, {URL: u2.String(), Username: user2, Password: pass2, Insecure: true}} {
		vms, _, _, err := ReadVCenter(context.Background(), vc)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, vms...)
	}
	if len(all) != 4 {
		t.Fatalf("%d VMs", len(all))
	}
	p, _ := migration.Import(all, migration.ImportOptions{TPMModel: "tpm-crb"})
	seen := map[string]bool{}
	for _, v := range p.VMs {
		if seen[v.TargetImage] || strings.Contains(v.TargetImage, "://") || strings.Contains(v.TargetImage, ":") {
			t.Errorf("image name %q", v.TargetImage)
		}
		seen[v.TargetImage] = true
	}
}

var bench5000 struct {
	once       sync.Once
	u          *url.URL
	user, pass string
	stop       func()
}

// TestMain stops the benchmark's simulator, which outlives one run.
func TestMain(m *testing.M) {
	code := m.Run()
	if bench5000.stop != nil {
		bench5000.stop()
	}
	os.Exit(code)
}

// BenchmarkReadVCenter5000 is one property-collector pass over 5,000
// simulated VMs (the VPX model puts Machine VMs on a host and as many in a
// cluster pool); requests/op must stay a constant.
func BenchmarkReadVCenter5000(b *testing.B) {
	bench5000.once.Do(func() {
		u, user, pass, stop, err := fakevc.Serve(2500, "pw-bench")
		if err != nil {
			b.Fatal(err)
		}
		bench5000.u, bench5000.user, bench5000.pass, bench5000.stop = u, user, pass, stop
	})
	var st VCenterStats
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		vms, _, s, err := ReadVCenter(context.Background(), VCenter{URL: bench5000.u.String(), Username: bench5000.user, Password: bench5000.pass, Insecure: true})
		if err != nil || len(vms) != 5000 {
			b.Fatalf("%v, %d VMs", err, len(vms))
		}
		st = s
	}
	b.ReportMetric(float64(st.Requests), "requests/op")
	b.ReportMetric(float64(st.VMs), "VMs/op")
}

// TestReadVCenterDeadlineAndInterrupt: every vCenter call is under the
// per-request timeout and the caller's context, as OpenStack's are.
func TestReadVCenterDeadlineAndInterrupt(t *testing.T) {
	addr := fakecloud.Silent(t)
	vc := VCenter{URL: "https://" + addr + "/sdk", Username: "u", Password: "p", Insecure: true}
	cases := []struct {
		name    string
		timeout time.Duration
		cancel  time.Duration // cancel the context after this (the interrupt)
		check   func(error) bool
	}{
		{"timeout", 500 * time.Millisecond, 0, func(err error) bool {
			var te *TimeoutError
			return errors.As(err, &te) && te.Host == "127.0.0.1" && strings.Contains(err.Error(), "vCenter 127.0.0.1") && strings.Contains(err.Error(), "500ms")
		}},
		{"interrupt", time.Hour, 300 * time.Millisecond, func(err error) bool {
			return errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "canceled")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel > 0 {
				time.AfterFunc(tc.cancel, cancel)
			}
			vc.Timeout = tc.timeout
			start := time.Now()
			done := make(chan error, 1)
			go func() { _, _, _, err := ReadVCenter(ctx, vc); done <- err }()
			select {
			case err := <-done:
				if !tc.check(err) || time.Since(start) > 5*time.Second {
					t.Errorf("after %s: %v", time.Since(start), err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("still waiting on a vCenter that never answers after 20s")
			}
		})
	}
}
