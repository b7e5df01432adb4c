package flavor

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// adminProject is the fixture's project named "admin".
const adminProject = "bd1412addbaa4f6d9501770ef6c1e0fa"

// newFlavorRoutes: w1 is not a flavor yet; creating it answers new1.
func newFlavorRoutes(c *fakecloud.Cloud) {
	c.Handle("POST /compute/v2.1/flavors [compute 2.86]", fakecloud.JSON(200, `{"flavor":{"id":"new1","name":"w1","vcpus":2,"ram":1024,"disk":10,"os-flavor-access:is_public":false,"extra_specs":{}}}`))
}

// noProjectIDs: a project named is no project's ID.
func noProjectIDs(c *fakecloud.Cloud) {
	c.Handle("GET /identity/v3/projects/*", fakecloud.JSON(404, `{"error":{"code":404}}`))
}

// A private flavor is created, its project (by name) given access, its
// specs set in one POST; the advice is for the new flavor (1.2 against
// the fixture's 2.0 image).
func TestCreateFlavorPrivate(t *testing.T) {
	c, sess := flavorCloud(t)
	newFlavorRoutes(c)
	noProjectIDs(c)
	c.Handle("POST /compute/v2.1/flavors/new1/action [compute 2.86]", fakecloud.JSON(200, `{"flavor_access":[]}`))
	c.Handle("POST /compute/v2.1/flavors/new1/os-extra_specs [compute 2.86]", fakecloud.JSON(200, `{"extra_specs":{}}`))
	res, err := Create(context.Background(), sess, CreateRequest{Name: "w1", VCPUs: 2, RAM: 1024, Disk: 10,
		Projects: []string{"admin"}, Change: nova.FlavorRequest{TPMVersion: "1.2"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Created || res.Plan.Err != nil || res.Plan.ID != "new1" || res.Release.Release != nova.Zed {
		t.Fatalf("result %+v", res)
	}
	var create struct {
		Flavor map[string]any `json:"flavor"`
	}
	if posts := c.SentTo("POST", "/compute/v2.1/flavors"); len(posts) != 1 || json.Unmarshal([]byte(posts[0].Body), &create) != nil ||
		create.Flavor["os-flavor-access:is_public"] != false {
		t.Errorf("create %v", posts)
	}
	if a := c.SentTo("POST", "/compute/v2.1/flavors/new1/action"); len(a) != 1 || !strings.Contains(a[0].Body, adminProject) {
		t.Errorf("access %v", a)
	}
	if s := c.SentTo("POST", "/compute/v2.1/flavors/new1/os-extra_specs"); len(s) != 1 || !strings.Contains(s[0].Body, `"hw:tpm_version":"1.2"`) {
		t.Errorf("specs %v", s)
	}
	if res.ConflictsErr != nil || len(res.Conflicts) != 1 || !strings.Contains(res.Conflicts[0], "flavor w1 with image fx-win11") {
		t.Errorf("conflicts %q (%v)", res.Conflicts, res.ConflictsErr)
	}
}

// A flavor of that name and size is brought in line (a rerun): one PUT
// for the changed key, Created false.
func TestCreateFlavorExisting(t *testing.T) {
	c, sess := flavorCloud(t)
	c.Handle("PUT /compute/v2.1/flavors/"+fxVTPM+"/os-extra_specs/hw:tpm_model [compute 2.86]", fakecloud.JSON(200, `{"hw:tpm_model":"tpm-tis"}`))
	res, err := Create(context.Background(), sess, CreateRequest{Name: "fx-vtpm", VCPUs: 1, RAM: 64, Disk: 1, Public: true,
		Change: nova.FlavorRequest{TPMVersion: "2.0", TPMModel: "tpm-tis"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Created || res.Plan.Err != nil || res.Plan.ID != fxVTPM || len(nova.Writes(res.Plan.Changes)) != 1 {
		t.Errorf("result %+v", res)
	}
}

// A failed spec write deletes the new flavor again: the call succeeds
// (something was planned), the plan's Err says what happened.
func TestCreateFlavorRollback(t *testing.T) {
	c, sess := flavorCloud(t)
	newFlavorRoutes(c)
	c.Handle("POST /compute/v2.1/flavors/new1/os-extra_specs", fakecloud.JSON(403, `{"forbidden":{"message":"policy"}}`))
	c.Handle("DELETE /compute/v2.1/flavors/new1", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(202) })
	res, err := Create(context.Background(), sess, CreateRequest{Name: "w1", VCPUs: 2, RAM: 1024, Disk: 10, Public: true,
		Change: nova.FlavorRequest{TPMVersion: "2.0"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Created || res.Plan.Err == nil || !strings.Contains(res.Plan.Err.Error(), "deleted again") || c.Count("DELETE /compute/v2.1/flavors/new1") != 1 {
		t.Errorf("result %+v", res)
	}
}

// The call's errors, each before anything is written: another size, a
// request the release refuses, an unknown project, a release the cloud
// does not tell.
func TestCreateFlavorRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		req   CreateRequest
		cloud func(*fakecloud.Cloud)
		want  func(error) bool
	}{
		{name: "another size", req: CreateRequest{Name: "fx-vtpm", VCPUs: 8, RAM: 64, Disk: 1, Public: true, Change: nova.FlavorRequest{TPMVersion: "2.0"}},
			want: func(err error) bool {
				var size *SizeError
				return errors.As(err, &size) && errors.Is(err, nova.ErrFlavorExists)
			}},
		{name: "secret security on Zed", req: CreateRequest{Name: "w1", VCPUs: 1, RAM: 64, Change: nova.FlavorRequest{TPMVersion: "2.0", SecretSecurity: "host"}},
			want: func(err error) bool {
				var fe *nova.FieldError
				return errors.As(err, &fe) && fe.Field == nova.FieldSecretSecurity
			}},
		{name: "unknown project", req: CreateRequest{Name: "w1", VCPUs: 1, RAM: 64, Projects: []string{"nosuch"}, Change: nova.FlavorRequest{TPMVersion: "2.0"}},
			cloud: noProjectIDs,
			want:  func(err error) bool { return strings.Contains(err.Error(), `no project named or with ID "nosuch"`) }},
		{name: "CRB with 1.2 on an existing flavor", req: CreateRequest{Name: "fx-vtpm", VCPUs: 1, RAM: 64, Disk: 1, Public: true, Change: nova.FlavorRequest{TPMVersion: "1.2"}},
			want: func(err error) bool { return strings.Contains(err.Error(), "would be refused by Nova") }},
		{name: "release unknown", req: CreateRequest{Name: "w1", VCPUs: 1, RAM: 64, Change: nova.FlavorRequest{TPMVersion: "2.0"}},
			cloud: func(c *fakecloud.Cloud) { c.Handle("GET /compute/v2.1/", fakecloud.JSON(500, `{"error":"down"}`)) },
			want:  func(err error) bool { return strings.Contains(err.Error(), "compute API version") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, sess := flavorCloud(t) // no write answered: one would fail the test
			if tc.cloud != nil {
				tc.cloud(c)
			}
			if _, err := Create(context.Background(), sess, tc.req); err == nil || !tc.want(err) {
				t.Fatalf("error %v", err)
			}
			for _, r := range c.Sent() {
				if r.Method != "GET" && !strings.HasPrefix(r.Path, "/identity") {
					t.Errorf("wrote %s %s before refusing", r.Method, r.Path)
				}
			}
		})
	}
}

// A rerun on a flavor that exists with this size changes only the specs
// named, so the advice is for the flavor as it will be: its own
// hw:tpm_model=tpm-tis with the fixture's tpm-crb image ends in ERROR,
// though --tpm-version 2.0 alone would not. (The advice used to assume a
// new flavor and said nothing; flavor set warned for the same flavor.)
func TestCreateFlavorAdviceForExisting(t *testing.T) {
	c, sess := flavorCloud(t)
	c.Handle(fakecloud.Flavors, fakecloud.JSON(200, `{"flavors":[{"id":"tis1","name":"w-tis","vcpus":1,"ram":64,"disk":1,"os-flavor-access:is_public":true,
"extra_specs":{"hw:tpm_version":"2.0","hw:tpm_model":"tpm-tis"}}]}`))
	res, err := Create(context.Background(), sess, CreateRequest{Name: "w-tis", VCPUs: 1, RAM: 64, Disk: 1, Public: true,
		Change: nova.FlavorRequest{TPMVersion: "2.0"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Created || res.Plan.ID != "tis1" || len(nova.Writes(res.Plan.Changes)) != 0 {
		t.Fatalf("result %+v", res)
	}
	if res.ConflictsErr != nil || len(res.Conflicts) != 1 || !strings.Contains(res.Conflicts[0], "flavor w-tis with image fx-win11") {
		t.Errorf("conflicts %q (%v)", res.Conflicts, res.ConflictsErr)
	}
}

// flavor create looks its name up once (a GET by ID, then the list),
// for a new flavor and for a rerun on an existing one: the advice and
// the create share the lookup. Before, CreateVTPM looked
// the name up again: two GETs and two lists.
func TestCreateFlavorLooksUpOnce(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  CreateRequest
	}{
		{"new", CreateRequest{Name: "w1", VCPUs: 2, RAM: 1024, Disk: 10, Public: true, Change: nova.FlavorRequest{TPMVersion: "2.0"}}},
		{"existing", CreateRequest{Name: "fx-vtpm", VCPUs: 1, RAM: 64, Disk: 1, Public: true, Change: nova.FlavorRequest{TPMVersion: "2.0", TPMModel: "tpm-crb"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, sess := flavorCloud(t)
			if tc.name == "new" {
				newFlavorRoutes(c)
				c.Handle("POST /compute/v2.1/flavors/new1/os-extra_specs [compute 2.86]", fakecloud.JSON(200, `{"extra_specs":{}}`))
			}
			res, err := Create(context.Background(), sess, tc.req)
			if err != nil || res.Plan.Err != nil {
				t.Fatalf("%v %+v", err, res)
			}
			byName := c.SentTo("GET", "/compute/v2.1/flavors/"+tc.req.Name)
			lists := c.SentTo("GET", "/compute/v2.1/flavors/detail")
			if len(byName) != 1 || len(lists) != 1 {
				t.Errorf("flavor lookups: %d by ID, %d lists, want 1 and 1: %v", len(byName), len(lists), c.Sent())
			}
		})
	}
}
