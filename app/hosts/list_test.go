package hosts

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/domain/fleet"
)

// strictServer answers only the requests a test lists, each by method,
// path and exact query, and checks the microversion header sent with it;
// any other request fails the test. Verify fails on answers never asked.
type strictServer struct {
	t      *testing.T
	mu     sync.Mutex
	routes map[string]*stub // "GET /path?query"
	URL    string
}

type stub struct {
	header, value string // a header the request must carry
	status        int
	body          string
	used          int
}

func newStrictServer(t *testing.T) *strictServer {
	s := &strictServer{t: t, routes: map[string]*stub{}}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

func (s *strictServer) on(req, header, value string, status int, body string) {
	s.routes[req] = &stub{header: header, value: value, status: status, body: strings.ReplaceAll(body, "{URL}", s.URL)}
}

func (s *strictServer) serve(w http.ResponseWriter, r *http.Request) {
	key := r.Method + " " + r.URL.RequestURI()
	s.mu.Lock()
	st := s.routes[key]
	if st != nil {
		st.used++
	}
	s.mu.Unlock()
	if st == nil {
		s.t.Errorf("unexpected request %s", key)
		http.Error(w, "unexpected", http.StatusNotImplemented)
		return
	}
	if got := r.Header.Get(st.header); got != st.value {
		s.t.Errorf("%s: %s %q, want %q", key, st.header, got, st.value)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(st.status)
	fmt.Fprint(w, st.body)
}

func (s *strictServer) verify() {
	for k, st := range s.routes {
		if st.used == 0 {
			s.t.Errorf("never asked: %s", k)
		}
	}
}

func (s *strictServer) clients() (compute, placement *gophercloud.ServiceClient) {
	pc := &gophercloud.ProviderClient{HTTPClient: http.Client{}}
	return &gophercloud.ServiceClient{ProviderClient: pc, Endpoint: s.URL + "/compute/", ResourceBase: s.URL + "/compute/", Type: "compute"},
		&gophercloud.ServiceClient{ProviderClient: pc, Endpoint: s.URL + "/placement/", ResourceBase: s.URL + "/placement/", Type: "placement"}
}

const (
	hvHeader = "X-OpenStack-Nova-API-Version"
	plHeader = "OpenStack-API-Version"
)

// TestList: the hypervisor list at 2.53 (UUIDs are the providers'),
// its next page followed; one Placement list per trait at 1.18 with
// required=; a trait this Placement does not know (400) is no host's;
// traits land on the host whose provider has them, sorted; hosts sorted.
func TestList(t *testing.T) {
	s := newStrictServer(t)
	s.on("GET /compute/os-hypervisors/detail", hvHeader, "2.53", 200,
		`{"hypervisors":[{"id":"rp-b","hypervisor_hostname":"b.example","state":"up","status":"enabled","hypervisor_version":8002000,"service":{"host":"b","id":"svc-b"}}],
		  "hypervisors_links":[{"rel":"next","href":"{URL}/compute/os-hypervisors/detail?marker=rp-b"}]}`)
	s.on("GET /compute/os-hypervisors/detail?marker=rp-b", hvHeader, "2.53", 200,
		`{"hypervisors":[{"id":"rp-a","hypervisor_hostname":"a.example","state":"down","status":"disabled","hypervisor_version":8002000,"service":{"host":"a","id":"svc-a"}}]}`)
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
		s.on("GET /placement/resource_providers?required="+trait, plHeader, "placement 1.18", status, body)
	}
	cc, pl := s.clients()
	hosts, err := List(context.Background(), cc, pl)
	if err != nil {
		t.Fatal(err)
	}
	s.verify()
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
	s := newStrictServer(t)
	s.on("GET /compute/os-hypervisors/detail", hvHeader, "2.53", 403, `{"forbidden":{"code":403,"message":"Policy doesn't allow os_compute_api:os-hypervisors:list-detail to be performed."}}`)
	cc, pl := s.clients()
	if hosts, err := List(context.Background(), cc, pl); err == nil || hosts != nil || !strings.Contains(err.Error(), "listing hypervisors (needs admin)") {
		t.Errorf("403: %v %v", hosts, err)
	}
	s.verify()

	s = newStrictServer(t)
	s.on("GET /compute/os-hypervisors/detail", hvHeader, "2.53", 200, `{"hypervisors":[]}`)
	s.on("GET /placement/resource_providers?required="+fleet.TPMTraits[0], plHeader, "placement 1.18", 503, `{"errors":[{"status":503}]}`)
	cc, pl = s.clients()
	if hosts, err := List(context.Background(), cc, pl); err == nil || hosts != nil || !strings.Contains(err.Error(), "listing resource providers with "+fleet.TPMTraits[0]) {
		t.Errorf("503: %v %v", hosts, err)
	}
	s.verify()
}
