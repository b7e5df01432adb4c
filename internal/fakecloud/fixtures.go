package fakecloud

import (
	"encoding/json"
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
// Their object names:
const (
	FixtureServer = "fx-win11-server"
	FixtureImage  = "fx-win11"
	FixtureFlavor = "fx-vtpm"
)

func fixtureDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata")
}

// Fixture returns a captured answer with its links pointing at this fake.
func (c *Cloud) Fixture(name string) string {
	b, err := os.ReadFile(filepath.Join(fixtureDir(), name+".json"))
	if err != nil {
		c.t.Fatalf("fixture %s: %v", name, err)
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

// Standard serves every captured answer, the item GETs that lists hold
// (an image or flavor by ID), and Placement's lists by trait.
func (c *Cloud) Standard() *Cloud {
	for route, name := range map[string]string{
		"GET /compute/v2.1/":                      "compute-version",
		"GET /compute/v2.1/servers/detail":        "servers-detail",
		"GET /compute/v2.1/flavors/detail":        "flavors-detail",
		"GET /compute/v2.1/os-hypervisors/detail": "hypervisors",
		"GET /image/v2/images":                    "images",
		"GET /key-manager/v1/secrets":             "secrets",
		"GET /key-manager/v1/secrets/*":           "secret-acl",
		"GET /identity/v3/projects":               "projects",
		"GET /identity/v3/role_assignments":       "role-assignments",
		"GET /identity/v3/users/*":                "user",
	} {
		c.Handle(route, JSON(200, c.Fixture(name)))
	}
	c.Handle("GET /image/v2/images/*", c.item("images", "images", "", "/image/v2/images/"))
	c.Handle("GET /compute/v2.1/flavors/*", c.item("flavors-detail", "flavors", "flavor", "/compute/v2.1/flavors/"))
	c.Handle("GET /placement/resource_providers", func(w http.ResponseWriter, r *http.Request) {
		name := "rp-" + r.URL.Query().Get("required")
		if _, err := os.Stat(filepath.Join(fixtureDir(), name+".json")); err != nil {
			JSON(200, `{"resource_providers":[]}`)(w, r)
			return
		}
		JSON(200, c.Fixture(name))(w, r)
	})
	return c
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
