package fakecloud

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Fixtures are real answers of the local Zed cloud to the requests
// vtpmctl makes (devcloud/capture-fixtures.sh wrote them): one vTPM guest
// booted on the libvirt compute, its Barbican secret, the vTPM image and
// flavor it was built from, both hypervisors and their Placement traits.
// volumes-detail is the one not captured (the Zed cloud has no volume-
// backed vTPM guest): Cinder's api-ref sample for GET /v3/{project}/
// volumes/detail with the fields a real answer carries for a boot volume
// made from fx-win11 (volume_image_metadata, string values as Cinder
// stores them), a data volume and an unattached one.
// Their object names:
const (
	FixtureServer = "fx-win11-server"
	FixtureImage  = "fx-win11"
	FixtureFlavor = "fx-vtpm"
	// FixtureVolumeServer boots from volume fx-win11-boot (/dev/vda) and
	// has fx-data attached as /dev/vdb.
	FixtureVolumeServer = "5a0d3c1e-8f2b-4c6d-9e1a-7b3c5d9e1f02"
)

func fixtureDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata")
}

// Fixture returns a captured answer with its links pointing at this fake.
func (c *Cloud) Fixture(name string) string {
	b, err := os.ReadFile(filepath.Join(fixtureDir(), name+".json"))
	if err != nil {
		c.fatal(fmt.Errorf("fixture %s: %v", name, err))
	}
	return strings.ReplaceAll(string(b), "{{URL}}", c.URL)
}

// FixtureObjects decodes a fixture's list under key ("servers").
func (c *Cloud) FixtureObjects(name, key string) []map[string]any {
	var doc map[string]json.RawMessage
	json.Unmarshal([]byte(c.Fixture(name)), &doc)
	var out []map[string]any
	json.Unmarshal(doc[key], &out)
	return out
}

// The routes of the lists vtpmctl reads, as it must send them: tests
// answer them (Handle(fakecloud.Servers, …)) without restating what is
// expected, and a client that drops a filter or a microversion misses.
const (
	// Servers embeds each server's flavor (2.47; 2.98 adds the image's
	// properties); all_tenants for admins, with project_id for one
	// project's. The fake does not filter: the client re-checks.
	Servers = "GET /compute/v2.1/servers/detail?[all_tenants=true]&[project_id=*]&limit=1000 [compute >=2.47]"
	// Flavors and Flavor embed extra specs (2.61; writes ask 2.86).
	Flavors = "GET /compute/v2.1/flavors/detail?is_public=None&limit=1000 [compute >=2.61]"
	Flavor  = "GET /compute/v2.1/flavors/* [compute >=2.61]"
	// Hypervisors: 2.53 names them by UUID and carries the service host.
	Hypervisors = "GET /compute/v2.1/os-hypervisors/detail [compute >=2.53]"
	// Images is every image; ImagesByName the lookup with Glance's eq:.
	Images       = "GET /image/v2/images?limit=1000"
	ImagesByName = "GET /image/v2/images?limit=100&name=*"
	// Secrets pages Barbican's list filtered to Nova's vTPM secrets.
	Secrets = "GET /key-manager/v1/secrets?limit=100&name=vTPM+secret+for+instance+%25&offset=*"
	// Projects, all or by name (Keystone filters).
	Projects = "GET /identity/v3/projects?[name=*]"
	// RoleAssignments of one project or all, implied roles resolved.
	RoleAssignments = "GET /identity/v3/role_assignments?effective=true&[scope.project.id=*]"
	// ResourceProviders by trait: required= needs Placement 1.18.
	ResourceProviders = "GET /placement/resource_providers?required=* [placement >=1.18]"
	// Volumes is Cinder's detail list in the token's project.
	Volumes = "GET /volume/v3/" + ProjectID + "/volumes/detail?[all_tenants=true]&[project_id=*]&[bootable=true]&limit=1000"
)

// Standard serves every captured answer, the item GETs that lists hold
// (an image or flavor by ID), Glance's name and property filters and
// Placement's lists by trait. Each route declares the query and the
// microversion vtpmctl must send (the feature it needs: 2.47 embeds a
// server's flavor, 2.61 a flavor's extra specs, Placement 1.18 the
// required= filter), so a request that drops one fails the test.
func (c *Cloud) Standard() *Cloud {
	// a cloud, not a test's expectations: a test reads the part its
	// command asks for
	c.OptionalRoutes("the standard cloud's")
	defer c.OptionalRoutes("")
	for route, name := range map[string]string{
		"GET /compute/v2.1/":            "compute-version",
		Servers:                         "servers-detail",
		Flavors:                         "flavors-detail",
		Hypervisors:                     "hypervisors",
		Secrets:                         "secrets",
		"GET /key-manager/v1/secrets/*": "secret-acl",
		RoleAssignments:                 "role-assignments",
		"GET /identity/v3/users/*":      "user",
		Volumes:                         "volumes-detail",
	} {
		c.Handle(route, JSON(200, c.Fixture(name)))
	}
	var ps []Project
	for _, p := range c.FixtureObjects("projects", "projects") {
		ps = append(ps, Project{ID: fmt.Sprint(p["id"]), Name: fmt.Sprint(p["name"]), Doc: p})
	}
	c.AddProjects(ps...)
	images := c.filteredImages()
	c.Handle(Images, images)
	c.Handle(ImagesByName, images)
	c.Handle("GET /image/v2/images/*", c.item("images", "images", "", "/image/v2/images/"))
	c.Handle(Flavor, c.item("flavors-detail", "flavors", "flavor", "/compute/v2.1/flavors/"))
	c.Handle(ResourceProviders, func(w http.ResponseWriter, r *http.Request) {
		name := "rp-" + r.URL.Query().Get("required")
		if _, err := os.Stat(filepath.Join(fixtureDir(), name+".json")); err != nil {
			JSON(200, `{"resource_providers":[]}`)(w, r)
			return
		}
		JSON(200, c.Fixture(name))(w, r)
	})
	return c
}

// filteredImages answers Glance's image list filtered as Glance does:
// name=eq:X (or X) by name, any other parameter but paging's as a
// property that must equal it. A client that drops a filter gets every
// image back, as from the real Glance.
func (c *Cloud) filteredImages() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var keep []map[string]any
		for _, img := range c.FixtureObjects("images", "images") {
			ok := true
			for k, vs := range r.URL.Query() {
				switch k {
				case "limit", "marker", "sort", "sort_key", "sort_dir":
				case "name":
					ok = ok && img["name"] == strings.TrimPrefix(vs[0], "eq:")
				default:
					ok = ok && fmt.Sprint(img[k]) == vs[0]
				}
			}
			if ok {
				keep = append(keep, img)
			}
		}
		b, _ := json.Marshal(map[string]any{"images": keep, "schema": "/v2/schemas/images", "first": "/v2/images"})
		JSON(200, string(b))(w, r)
	}
}

// item answers GET …/ID from a list fixture; wrap names the object key
// ("flavor"), "" for Glance's bare objects.
func (c *Cloud) item(fixture, key, wrap, prefix string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := strings.TrimPrefix(r.URL.Path, prefix)
		if strings.Contains(id, "/") {
			JSON(404, `{"itemNotFound":{"message":"fakecloud: no sub-resource"}}`)(w, r)
			return
		}
		for _, o := range c.FixtureObjects(fixture, key) {
			if o["id"] == id {
				var v any = o
				if wrap != "" {
					v = map[string]any{wrap: o}
				}
				b, _ := json.Marshal(v)
				JSON(200, string(b))(w, r)
				return
			}
		}
		JSON(404, `{"itemNotFound":{"message":"not found","code":404}}`)(w, r)
	}
}
