package vsphere

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/vmware/govmomi"
	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/session"
	"github.com/vmware/govmomi/view"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/vtpmctl/vtpmctl/domain/migration"
)

// VCenter is one vCenter to read, in govc's terms (GOVC_URL,
// GOVC_USERNAME, GOVC_PASSWORD, GOVC_INSECURE, GOVC_DATACENTER).
type VCenter struct {
	URL        string // host, host:port or https://host/sdk; no credentials
	Username   string
	Password   string
	Insecure   bool   // accept any certificate (GOVC_INSECURE)
	Datacenter string // "" reads every datacenter
	// Timeout bounds each SOAP request, as the cloud session's timeout
	// bounds each OpenStack request (0: none); the context passed to
	// ReadVCenter is the interrupt.
	Timeout time.Duration
}

// TimeoutError is a vCenter that accepted the connection and did not
// answer one request within VCenter.Timeout.
type TimeoutError struct {
	Host  string
	Doing string
	After time.Duration
	Err   error
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("vCenter %s: %s: no answer within %s", e.Host, e.Doing, e.After)
}

func (e *TimeoutError) Unwrap() error { return e.Err }

// cleanupMax bounds logout and the view's destroy: they run after an
// interrupt too (a vCenter keeps a leaked session for hours), but must not
// hold the interrupted command for a whole Timeout each.
const cleanupMax = 5 * time.Second

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
func ReadVCenter(ctx context.Context, vc VCenter) ([]migration.SourceVM, []migration.Skipped, VCenterStats, error) {
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
	// soap.Client is an http.Client: the deadline covers connect, TLS
	// handshake and the answer of every call (login, view, retrieve,
	// logout), like the OpenStack session's.
	sc.Timeout = vc.Timeout
	sc.Transport = &countingTransport{next: sc.Transport, n: &st.Requests}
	fail := func(doing string, err error) error {
		if vc.Timeout > 0 && isTimeout(err) {
			return &TimeoutError{Host: host, Doing: doing, After: vc.Timeout, Err: err}
		}
		return fmt.Errorf("vCenter %s: %s: %s", host, doing, oneLineErr(err))
	}
	vim, err := vim25.NewClient(ctx, sc)
	if err != nil {
		return nil, nil, st, fail("connecting", err)
	}
	c := &govmomi.Client{Client: vim, SessionManager: session.NewManager(vim)}
	if u.User != nil {
		if err := c.Login(ctx, u.User); err != nil {
			return nil, nil, st, fail("login as "+vc.Username, err)
		}
	}
	defer cleanup(ctx, func(ctx context.Context) { c.Logout(ctx) })

	root := c.ServiceContent.RootFolder
	if vc.Datacenter != "" {
		dc, err := find.NewFinder(c.Client).Datacenter(ctx, vc.Datacenter)
		if err != nil {
			return nil, nil, st, fail(fmt.Sprintf("datacenter %q", vc.Datacenter), err)
		}
		root = dc.Reference()
	}
	v, err := view.NewManager(c.Client).CreateContainerView(ctx, root, []string{"VirtualMachine"}, true)
	if err != nil {
		return nil, nil, st, fail("creating the VM view", err)
	}
	defer cleanup(ctx, func(ctx context.Context) { v.Destroy(ctx) })
	var mos []mo.VirtualMachine
	if err := v.Retrieve(ctx, []string{"VirtualMachine"}, vmProperties, &mos); err != nil {
		return nil, nil, st, fail("reading VMs", err)
	}
	vcUUID := c.ServiceContent.About.InstanceUuid
	var vms []migration.SourceVM
	var skipped []migration.Skipped
	for _, m := range mos {
		vm, template := fromVCenter(m, host, vcUUID)
		if template {
			st.Templates++
			skipped = append(skipped, migration.Skipped{Name: vm.Name, Reason: "template on vCenter " + host})
			continue
		}
		vms = append(vms, vm)
	}
	st.VMs = len(vms)
	return vms, skipped, st, nil
}

// fromVCenter maps one VM's properties; the evidence names the source.
func fromVCenter(m mo.VirtualMachine, host, vcUUID string) (migration.SourceVM, bool) {
	vm := migration.SourceVM{Name: m.Name, VCenter: host, VCenterUUID: vcUUID, MoRef: m.Self.Value, PowerState: string(m.Runtime.PowerState), VTPM: "no",
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

// cleanup runs a best-effort call after the read, even once ctx is
// cancelled, for at most cleanupMax.
func cleanup(ctx context.Context, f func(context.Context)) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupMax)
	defer cancel()
	f(ctx)
}

// isTimeout: the request's deadline passed (http.Client's Timeout or the
// context's).
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

func oneLineErr(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
