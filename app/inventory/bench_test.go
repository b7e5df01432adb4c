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

// BenchmarkListInventory50k lists 50,000 vTPM guests (and 5,000 other
// servers) from the synthetic cloud. Besides -benchmem's totals it
// reports the heap each guest keeps once listed (retained-B/guest) and
// what listing allocates per guest (alloc-B/guest).
func BenchmarkListInventory50k(b *testing.B) {
	// not recorded: the fake's records would count in the heap measured
	c, err := scale.New(fakecloud.NewWith(b, fakecloud.Options{NoRecord: true}), scale.Config{Guests: 50000, Others: 5000, Projects: 500, Hypervisors: 2000})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	pc, err := openstack.AuthenticatedClient(ctx, gophercloud.AuthOptions{IdentityEndpoint: c.URL + "/identity/v3", Username: "admin", Password: scale.Password,
		DomainName: "Default", Scope: &gophercloud.AuthScope{ProjectName: "admin", DomainName: "Default"}})
	if err != nil {
		b.Fatal(err)
	}
	eo := gophercloud.EndpointOpts{Region: "RegionOne"}
	cc, err1 := openstack.NewComputeV2(pc, eo)
	ic, err2 := openstack.NewImageV2(pc, eo)
	if err1 != nil || err2 != nil {
		b.Fatal(err1, err2)
	}
	for _, keep := range []bool{false, true} {
		name := map[bool]string{false: "guests-only", true: "keep-servers"}[keep]
		b.Run(name, func(b *testing.B) {
			var before, after, end runtime.MemStats
			var inv nova.Inventory
			for i := 0; i < b.N; i++ {
				inv = nova.Inventory{}
				runtime.GC()
				runtime.ReadMemStats(&before)
				if inv, err = List(ctx, cc, ic, nova.Zed, Opts{AllTenants: true, KeepServers: keep}); err != nil {
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
		})
	}
}
