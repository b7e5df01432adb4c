package inventory

import (
	"context"
	"runtime"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud/scale"
)

// scaleClients logs in to the synthetic cloud as admin scoped to project
// (by name) and returns the compute, image and block storage clients.
func scaleClients(tb testing.TB, c *scale.Cloud, project string) (cc, ic, vc *gophercloud.ServiceClient) {
	ctx := context.Background()
	pc, err := openstack.AuthenticatedClient(ctx, gophercloud.AuthOptions{IdentityEndpoint: c.URL + "/identity/v3", Username: "admin", Password: scale.Password,
		DomainName: "Default", Scope: &gophercloud.AuthScope{ProjectName: project, DomainName: "Default"}})
	if err != nil {
		tb.Fatal(err)
	}
	eo := gophercloud.EndpointOpts{Region: "RegionOne"}
	cc, err1 := openstack.NewComputeV2(pc, eo)
	ic, err2 := openstack.NewImageV2(pc, eo)
	vc, err3 := openstack.NewBlockStorageV3(pc, eo)
	if err1 != nil || err2 != nil || err3 != nil {
		tb.Fatal(err1, err2, err3)
	}
	return cc, ic, vc
}

// Against the synthetic cloud with a fourth of the servers booted from
// volumes: every guest is found (the volume-backed ones whose vTPM comes
// from their volume too), with one volume list of ceil(n/1000)+ pages,
// in the token's project or all tenants, and nothing else asked of Cinder.
func TestListInventoryScaleVolumes(t *testing.T) {
	c, err := scale.New(fakecloud.New(t), scale.Config{Guests: 2500, Others: 250, Projects: 3, Hypervisors: 10, VolumeBacked: 4})
	if err != nil {
		t.Fatal(err)
	}
	_, byVolume := c.VolumeBackedGuests()
	for _, all := range []bool{true, false} {
		project := map[bool]string{true: "admin", false: "proj-0000"}[all]
		cc, ic, vc := scaleClients(t, c, project)
		c.Reset()
		inv, err := List(context.Background(), cc, ic, nova.Zed, Opts{AllTenants: all, Volumes: vc})
		if err != nil {
			t.Fatal(err)
		}
		ev := map[nova.Evidence]int{}
		for _, g := range inv.Guests.All() {
			ev[g.Evidence]++
		}
		st := c.Stats()
		wantGuests, wantVolumePages := c.Config().Guests, c.NumVolumes()/1000+1
		if !all {
			wantGuests, wantVolumePages, byVolume = 0, 1, 0
			for i := 0; i < c.Config().Guests; i++ {
				if scale.ProjectOf(c.Config(), i) == 2 { // proj-0000
					wantGuests++
					if i%c.Config().VolumeBacked == 1 && i%3 == 0 {
						byVolume++
					}
				}
			}
		}
		if inv.Guests.Len() != wantGuests || ev[nova.EvidenceVolume] != byVolume || byVolume == 0 ||
			inv.UndecidedCount(nova.UndecidedNoBootVolume)+inv.UndecidedCount(nova.UndecidedNoBlockStorage) != 0 {
			t.Errorf("all=%v: %d guests (want %d), evidence %v (volume: want %d), %d undecided", all, inv.Guests.Len(), wantGuests, ev, byVolume, len(inv.Undecided))
		}
		if n := st.ByRoute["GET /volume/v3/{id}/volumes/detail"]; n != wantVolumePages || st.NUnexpected != 0 {
			t.Errorf("all=%v: %d volume requests (want %d), unexpected %v", all, n, wantVolumePages, st.Unexpected)
		}
	}
}

// BenchmarkListInventoryVolumes50k is BenchmarkListInventory50k with one
// server in four booted from a volume: retained-B/guest shows what the
// volume join keeps once the list is dropped.
func BenchmarkListInventoryVolumes50k(b *testing.B) {
	// not recorded: the fake's records would count in the heap measured
	c, err := scale.New(fakecloud.NewWith(b, fakecloud.Options{NoRecord: true}), scale.Config{Guests: 50000, Others: 5000, Projects: 500, Hypervisors: 2000, VolumeBacked: 4})
	if err != nil {
		b.Fatal(err)
	}
	cc, ic, vc := scaleClients(b, c, "admin")
	var before, after, end runtime.MemStats
	var inv nova.Inventory
	for i := 0; i < b.N; i++ {
		inv = nova.Inventory{}
		runtime.GC()
		runtime.ReadMemStats(&before)
		if inv, err = List(context.Background(), cc, ic, nova.Zed, Opts{AllTenants: true, Volumes: vc}); err != nil {
			b.Fatal(err)
		}
		runtime.ReadMemStats(&end)
		runtime.GC()
		runtime.ReadMemStats(&after)
	}
	if inv.Guests.Len() != 50000 {
		b.Fatalf("%d guests", inv.Guests.Len())
	}
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/50000, "retained-B/guest")
	b.ReportMetric(float64(end.TotalAlloc-before.TotalAlloc)/50000, "alloc-B/guest")
	runtime.KeepAlive(inv)
}
