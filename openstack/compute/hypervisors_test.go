package compute

import (
	"context"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// TestListHypervisors: the list at 2.53 (IDs are the providers' UUIDs),
// its next page followed; the caller's client keeps its microversion.
func TestListHypervisors(t *testing.T) {
	f := fakecloud.New(t)
	f.Handle("GET /compute/os-hypervisors/detail [compute 2.53]", fakecloud.JSON(200, `{"hypervisors":[{"id":"rp-b","hypervisor_hostname":"b.example","state":"up","status":"enabled","hypervisor_version":8002000,"service":{"host":"b","id":"svc-b"}}],
		  "hypervisors_links":[{"rel":"next","href":"`+f.URL+`/compute/os-hypervisors/detail?marker=rp-b"}]}`))
	f.Handle("GET /compute/os-hypervisors/detail?marker=rp-b [compute 2.53]", fakecloud.JSON(200, `{"hypervisors":[{"id":"rp-a","hypervisor_hostname":"a.example","state":"down","status":"disabled","hypervisor_version":8002000,"service":{"host":"a","id":"svc-a"}}]}`))
	c := f.ServiceClient("compute")
	got, err := ListHypervisors(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	want := []Hypervisor{
		{ID: "rp-b", Hostname: "b.example", ServiceHost: "b", State: "up", Status: "enabled"},
		{ID: "rp-a", Hostname: "a.example", ServiceHost: "a", State: "down", Status: "disabled"},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("hypervisors\n%+v\nwant\n%+v", got, want)
	}
	if c.Microversion != "" {
		t.Errorf("caller's client changed: %q", c.Microversion)
	}
}

// TestListHypervisorsRefused: a refused list says it needs admin and is
// no partial answer.
func TestListHypervisorsRefused(t *testing.T) {
	f := fakecloud.New(t)
	f.Handle("GET /compute/os-hypervisors/detail [compute 2.53]",
		fakecloud.JSON(403, `{"forbidden":{"code":403,"message":"Policy doesn't allow os_compute_api:os-hypervisors:list-detail to be performed."}}`))
	got, err := ListHypervisors(context.Background(), f.ServiceClient("compute"))
	if err == nil || got != nil || !strings.Contains(err.Error(), "listing hypervisors (needs admin)") {
		t.Errorf("403: %v %v", got, err)
	}
}
