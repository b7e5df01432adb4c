package plans

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/vmware/govmomi"
	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/session"
	"github.com/vmware/govmomi/view"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

// VCenter is one vCenter to read, in govc's terms (GOVC_URL,
// GOVC_USERNAME, GOVC_PASSWORD, GOVC_INSECURE, GOVC_DATACENTER).
type VCenter struct {
	URL        string // host, host:port or https://host/sdk; no credentials
	Username   string
	Password   string
	Insecure   bool   // accept any certificate (GOVC_INSECURE)
	Datacenter string // "" reads every datacenter
}

// VCenterStats is what one read cost.
type VCenterStats struct {
	VMs, Templates int
	Requests       int64 // SOAP round trips, login and logout included
}

// vmProperties are read for every VM in one property-collector pass: no
// per-VM round trip, however large the inventory.
var vmProperties = []string{
	"name", "config.template", "config.uuid", "config.instanceUuid", "config.version", "config.guestId", "config.guestFullName",
	"config.firmware", "config.bootOptions", "config.hardware", "config.keyId", "guest.guestFullName", "runtime.powerState", "snapshot",
}

// ReadVCenter reads every VM of a vCenter (or of one datacenter) with one
// container view and one property-collector retrieval (continued page by
// page by the collector, not per VM). Templates are skipped with the reason.
func ReadVCenter(ctx context.Context, vc VCenter) ([]SourceVM, []Skipped, VCenterStats, error) {
	var st VCenterStats
	u, err := soap.ParseURL(vc.URL)
	if err != nil || u == nil {
		return nil, nil, st, fmt.Errorf("vCenter URL %q: %v", vc.URL, err)
	}
	host := u.Hostname()
	if vc.Username != "" {
		u.User = url.UserPassword(vc.Username, vc.Password)
	}
	sc := soap.NewClient(u, vc.Insecure)
	sc.Transport = &countingTransport{next: sc.Transport, n: &st.Requests}
	vim, err := vim25.NewClient(ctx, sc)
	if err != nil {
		return nil, nil, st, fmt.Errorf("vCenter %s: %s", host, oneLineErr(err))
	}
	c := &govmomi.Client{Client: vim, SessionManager: session.NewManager(vim)}
	if u.User != nil {
		if err := c.Login(ctx, u.User); err != nil {
			return nil, nil, st, fmt.Errorf("vCenter %s: login as %s: %s", host, vc.Username, oneLineErr(err))
		}
	}
	defer c.Logout(context.WithoutCancel(ctx))

	root := c.ServiceContent.RootFolder
	if vc.Datacenter != "" {
		dc, err := find.NewFinder(c.Client).Datacenter(ctx, vc.Datacenter)
		if err != nil {
			return nil, nil, st, fmt.Errorf("vCenter %s: datacenter %q: %s", host, vc.Datacenter, oneLineErr(err))
		}
		root = dc.Reference()
	}
	v, err := view.NewManager(c.Client).CreateContainerView(ctx, root, []string{"VirtualMachine"}, true)
	if err != nil {
		return nil, nil, st, fmt.Errorf("vCenter %s: %s", host, oneLineErr(err))
	}
	defer v.Destroy(context.WithoutCancel(ctx))
	var mos []mo.VirtualMachine
	if err := v.Retrieve(ctx, []string{"VirtualMachine"}, vmProperties, &mos); err != nil {
		return nil, nil, st, fmt.Errorf("vCenter %s: reading VMs: %s", host, oneLineErr(err))
	}
	vcUUID := c.ServiceContent.About.InstanceUuid
	var vms []SourceVM
	var skipped []Skipped
	for _, m := range mos {
		vm, template := fromVCenter(m, host, vcUUID)
		if template {
			st.Templates++
			skipped = append(skipped, Skipped{Name: vm.Name, Reason: "template on vCenter " + host})
			continue
		}
		vms = append(vms, vm)
	}
	st.VMs = len(vms)
	return vms, skipped, st, nil
}

// fromVCenter maps one VM's properties; the evidence names the source.
func fromVCenter(m mo.VirtualMachine, host, vcUUID string) (SourceVM, bool) {
	vm := SourceVM{Name: m.Name, VCenter: host, VCenterUUID: vcUUID, MoRef: m.Self.Value, PowerState: string(m.Runtime.PowerState), VTPM: "no",
		VTPMEvidence: "vCenter " + host + ": no VirtualTPM device"}
	if m.Guest != nil {
		vm.OSTools = m.Guest.GuestFullName
	}
	if m.Snapshot != nil {
		vm.Snapshots = countSnapshots(m.Snapshot.RootSnapshotList)
	}
	cfg := m.Config
	if cfg == nil {
		vm.VTPM, vm.VTPMEvidence = "unknown", "vCenter "+host+": no configuration readable"
		return vm, false
	}
	vm.BIOSUUID, vm.InstanceUUID, vm.GuestID, vm.OSConfig = cfg.Uuid, cfg.InstanceUuid, cfg.GuestId, cfg.GuestFullName
	vm.HWVersion, _ = strconv.Atoi(strings.TrimPrefix(cfg.Version, "vmx-"))
	vm.Firmware = strings.ToLower(cfg.Firmware)
	if b := cfg.BootOptions; b != nil && b.EfiSecureBootEnabled != nil {
		sb := *b.EfiSecureBootEnabled
		vm.SecureBoot = &sb
	}
	if cfg.KeyId != nil && cfg.KeyId.ProviderId != nil {
		vm.KeyProvider = cfg.KeyId.ProviderId.Id
	}
	vm.VCPUs, vm.MemoryMiB = int(cfg.Hardware.NumCPU), int(cfg.Hardware.MemoryMB)
	for _, d := range cfg.Hardware.Device {
		switch dev := d.(type) {
		case *types.VirtualTPM:
			vm.VTPM, vm.VTPMEvidence = "yes", fmt.Sprintf("vCenter %s: VirtualTPM device (key %d)", host, dev.Key)
		case *types.VirtualDisk:
			b := dev.CapacityInBytes
			if b == 0 {
				b = dev.CapacityInKB * 1024
			}
			vm.DiskMiB += int((b + 1<<20 - 1) >> 20)
		}
	}
	return vm, cfg.Template
}

func countSnapshots(l []types.VirtualMachineSnapshotTree) int {
	n := 0
	for _, s := range l {
		n += 1 + countSnapshots(s.ChildSnapshotList)
	}
	return n
}

// countingTransport counts SOAP round trips, for the cost in make bench.
type countingTransport struct {
	next http.RoundTripper
	n    *int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	atomic.AddInt64(c.n, 1)
	return c.next.RoundTrip(r)
}

func oneLineErr(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
