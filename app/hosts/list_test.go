package hosts

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// strictCloud is a strict fakecloud: a request no route declares fails
// the test, so does a route never asked.
func strictCloud(t *testing.T) (c *fakecloud.Cloud, compute, placement *gophercloud.ServiceClient) {
	c = fakecloud.New(t)
	return c, c.ServiceClient("compute"), c.ServiceClient("placement")
}

const (
	hvAt = " [compute 2.53]"   // the hypervisor list's microversion: UUIDs
	plAt = " [placement 1.18]" // required= needs it
)

// TestList: the hypervisor list at 2.53 (UUIDs are the providers'),
// its next page followed; one Placement list per trait at 1.18 with
// required=; a trait this Placement does not know (400) is no host's;
// traits land on the host whose provider has them, sorted; hosts sorted.
func TestList(t *testing.T) {
	s, cc, pl := strictCloud(t)
	s.Handle("GET /compute/os-hypervisors/detail"+hvAt, fakecloud.JSON(200,
		`{"hypervisors":[{"id":"rp-b","hypervisor_hostname":"b.example","state":"up","status":"enabled","hypervisor_version":8002000,"service":{"host":"b","id":"svc-b"}}],
		  "hypervisors_links":[{"rel":"next","href":"`+s.URL+`/compute/os-hypervisors/detail?marker=rp-b"}]}`))
	s.Handle("GET /compute/os-hypervisors/detail?marker=rp-b"+hvAt, fakecloud.JSON(200,
		`{"hypervisors":[{"id":"rp-a","hypervisor_hostname":"a.example","state":"down","status":"disabled","hypervisor_version":8002000,"service":{"host":"a","id":"svc-a"}}]}`))
	for _, trait := range fleet.TPMTraits {
		body := `{"resource_providers":[]}`
		switch trait {
		case "COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_TIS":
			body = `{"resource_providers":[{"uuid":"rp-a","name":"a.example"},{"uuid":"rp-b","name":"b.example"},{"uuid":"rp-ironic","name":"x"}]}`
		case "COMPUTE_SECURITY_TPM_1_2":
			body = `{"resource_providers":[{"uuid":"rp-b","name":"b.example"}]}`
		}
		status := 200
		if trait == "OWNER_NOVA" {
			status, body = 400, `{"errors":[{"status":400,"title":"Bad Request","detail":"No such trait(s): OWNER_NOVA."}]}`
		}
		s.Handle("GET /placement/resource_providers?required="+trait+plAt, fakecloud.JSON(status, body))
	}
	hosts, err := List(context.Background(), cc, pl)
	if err != nil {
		t.Fatal(err)
	}
	s.Verify()
	want := []fleet.Host{
		{Host: "a", Hypervisor: "a.example", RPUUID: "rp-a", State: "down", Status: "disabled", Traits: []string{"COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_TIS"}},
		{Host: "b", Hypervisor: "b.example", RPUUID: "rp-b", State: "up", Status: "enabled", Traits: []string{"COMPUTE_SECURITY_TPM_1_2", "COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_TIS"}},
	}
	if fmt.Sprint(hosts) != fmt.Sprint(want) {
		t.Errorf("hosts\n%+v\nwant\n%+v", hosts, want)
	}
	// The caller's clients keep their microversions (copies are set).
	if cc.Microversion != "" || pl.Microversion != "" {
		t.Errorf("caller's clients changed: %q %q", cc.Microversion, pl.Microversion)
	}
}

// TestListErrors: a refused hypervisor list says it needs admin; a
// failing Placement list names its trait; neither is a partial answer.
func TestListErrors(t *testing.T) {
	// the lists run at once: the others may be asked before one fails
	others := func(s *fakecloud.Cloud, skip string) {
		for _, tr := range fleet.TPMTraits {
			if tr != skip {
				s.Handle("GET /placement/resource_providers?required="+tr+plAt, fakecloud.JSON(200, `{"resource_providers":[]}`)).Optional("listed beside the list that fails")
			}
		}
	}
	s, cc, pl := strictCloud(t)
	others(s, "")
	s.Handle("GET /compute/os-hypervisors/detail"+hvAt, fakecloud.JSON(403, `{"forbidden":{"code":403,"message":"Policy doesn't allow os_compute_api:os-hypervisors:list-detail to be performed."}}`))
	if hosts, err := List(context.Background(), cc, pl); err == nil || hosts != nil || !strings.Contains(err.Error(), "listing hypervisors (needs admin)") {
		t.Errorf("403: %v %v", hosts, err)
	}
	s.Verify()

	s, cc, pl = strictCloud(t)
	others(s, fleet.TPMTraits[0])
	s.Handle("GET /compute/os-hypervisors/detail"+hvAt, fakecloud.JSON(200, `{"hypervisors":[]}`))
	s.Handle("GET /placement/resource_providers?required="+fleet.TPMTraits[0]+plAt, fakecloud.JSON(503, `{"errors":[{"status":503}]}`))
	if hosts, err := List(context.Background(), cc, pl); err == nil || hosts != nil || !strings.Contains(err.Error(), "listing resource providers with "+fleet.TPMTraits[0]) {
		t.Errorf("503: %v %v", hosts, err)
	}
	s.Verify()
}
