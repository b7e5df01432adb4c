package inventory

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/completeness"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// TestListInventoryProjects: an admin's list for named projects asks Nova
// for each project's servers (all_tenants with project_id), not every
// project's; a record of another project (a Nova whose policy stripped
// the filter) is dropped; the lists say they are complete for those
// projects only.
func TestListInventoryProjects(t *testing.T) {
	c := fakecloud.New(t).Standard()
	// p1's answer carries p9's server too: the filter ignored
	answers := map[string]string{
		"p1": `{"servers":[
		{"id":"s1","name":"a","tenant_id":"p1","user_id":"u","status":"ACTIVE","image":"","flavor":{"original_name":"f","extra_specs":{"hw:tpm_version":"2.0"}}},
		{"id":"s9","name":"other","tenant_id":"p9","user_id":"u","status":"ACTIVE","image":"","flavor":{"original_name":"f","extra_specs":{"hw:tpm_version":"2.0"}}}]}`,
		"p2": `{"servers":[
		{"id":"s2","name":"b","tenant_id":"p2","user_id":"u","status":"ACTIVE","image":"","flavor":{"original_name":"f","extra_specs":{"hw:tpm_version":"2.0"}}}]}`,
	}
	c.Handle(fakecloud.Servers, func(w http.ResponseWriter, r *http.Request) {
		fakecloud.JSON(200, answers[r.URL.Query().Get("project_id")])(w, r)
	})
	inv, err := List(context.Background(), c.ServiceClient("compute/v2.1"), nil, nova.Zed,
		Opts{AllTenants: true, Projects: []string{"p2", "p1", "p2"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"GET /compute/v2.1/servers/detail?all_tenants=true&limit=1000&project_id=p1",
		"GET /compute/v2.1/servers/detail?all_tenants=true&limit=1000&project_id=p2"}
	if !reflect.DeepEqual(c.Requests, want) {
		t.Errorf("requests %q, want %q", c.Requests, want)
	}
	var ids []string
	for _, g := range inv.Guests.All() {
		ids = append(ids, g.ServerID)
	}
	if !reflect.DeepEqual(ids, []string{"s1", "s2"}) || inv.ServerMicroversion != "2.69" {
		t.Errorf("guests %v at %s", ids, inv.ServerMicroversion)
	}
	if g := inv.ServerGaps; len(g) != 1 || g[0].Kind != completeness.Scope || !strings.Contains(g[0].Detail, "project(s) p1, p2 only") {
		t.Errorf("gaps %v", g)
	}
}

// TestServerListGaps: what each scope of server list can prove.
func TestServerListGaps(t *testing.T) {
	at269 := nova.Inventory{ServerMicroversion: "2.69"}
	for _, tc := range []struct {
		name     string
		all      bool
		projects []string
		want     []completeness.Kind
	}{
		{"every project", true, nil, nil},
		{"own project", false, nil, []completeness.Kind{completeness.Scope}},
		{"named projects", true, []string{"p1"}, []completeness.Kind{completeness.Scope}},
	} {
		var kinds []completeness.Kind
		for _, g := range serverListGaps(at269, tc.all, tc.projects) {
			kinds = append(kinds, g.Kind)
		}
		if !reflect.DeepEqual(kinds, tc.want) {
			t.Errorf("%s: gaps %v, want %v", tc.name, kinds, tc.want)
		}
	}
}
