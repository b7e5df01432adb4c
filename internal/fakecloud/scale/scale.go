package scale

import (
	"fmt"
	"hash/fnv"
	"net/http"
	"sync"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// Config sizes the cloud. Zero values take the defaults in New.
type Config struct {
	Seed        int64
	Guests      int // vTPM servers
	Projects    int // tenant projects (admin and service come on top)
	Hypervisors int
	Others      int // servers without a vTPM
	Users       int // tenant users, spread over the projects
	Images      int
	// OtherSecrets per project: secrets not named for a vTPM, which
	// Barbican's old paging mixes into the vTPM list.
	OtherSecrets int
	// Paging is Barbican's next link: "old" drops the name filter (every
	// Barbican from Zed to 2025.1), "new" keeps the query's filters.
	Paging string
	// Microversion is Nova's maximum ("2.93" is Zed, "2.100" 2025.1).
	Microversion string
	// VolumeBacked: one server in VolumeBacked boots from a Cinder volume
	// (0: none, and no block storage in the catalog).
	VolumeBacked int
	// ProjectListLimit is Keystone's list_limit (0: none): a project list
	// longer than it is cut there and says "truncated": true.
	ProjectListLimit int
	// Orphans: vTPM secrets, in the first tenant project, of instances
	// that no longer exist (no list shows them, GET answers 404).
	Orphans int
	// UpperCaseNames: the secrets of the first guests, this many, are
	// named for the upper-case form of their server's UUID (Nova, as on
	// PostgreSQL, answers 404 for that form).
	UpperCaseNames int
}

// Password is admin's (the fake's).
const Password = fakecloud.Password

// Cloud is a synthetic cloud's data, served by its fakecloud.
type Cloud struct {
	*fakecloud.Cloud
	cfg Config
	d   *data

	mu    sync.Mutex
	lists []string // each server list's first-page query
	cache pageCache
}

// Stats is the fake's counters and what the cloud itself records.
type Stats struct {
	fakecloud.Stats
	// ServerLists is the query of each server list's first page (no
	// marker), in order: what a run asked Nova to list.
	ServerLists []string
}

func (c *Config) defaults() error {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.Guests, 2000)
	def(&c.Projects, 20)
	def(&c.Hypervisors, 100)
	def(&c.Images, 20)
	c.Others = max(c.Others, 0)
	if c.Users <= 0 {
		c.Users = 5 * c.Projects
	}
	c.VolumeBacked = max(c.VolumeBacked, 0)
	c.OtherSecrets = max(c.OtherSecrets, 0)
	switch c.Paging {
	case "":
		c.Paging = "old"
	case "old", "new":
	default:
		return fmt.Errorf("scale: paging %q: old or new", c.Paging)
	}
	if c.Microversion == "" {
		c.Microversion = "2.93"
	}
	if _, err := parseMV(c.Microversion); err != nil {
		return fmt.Errorf("scale: microversion: %v", err)
	}
	return nil
}

// New builds the cloud's data and registers it on fc: Keystone knows
// its projects (and only them), its users and roles; the catalog lists
// block storage only with volume-backed servers; every route is the
// cloud's, optional (a job reads a part of the cloud).
func New(fc *fakecloud.Cloud, cfg Config) (*Cloud, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	h := fnv.New32a()
	fmt.Fprint(h, cfg.Seed)
	c := &Cloud{Cloud: fc, cfg: cfg, d: newData(cfg, h.Sum32())}
	d := c.d
	fc.AnyProject, fc.ListLimit = false, cfg.ProjectListLimit
	fc.Admin = fakecloud.User{ID: d.kid(kUser, d.adminUser()), Name: "admin"}
	fc.Roles = nil
	for i, n := range roleNames {
		fc.Roles = append(fc.Roles, fakecloud.Role{ID: d.kid(kRole, i), Name: n})
	}
	var catalog []fakecloud.Service
	for _, s := range fc.Catalog {
		if s.Type != "block-storage" {
			catalog = append(catalog, s)
		} else if cfg.VolumeBacked > 0 {
			catalog = append(catalog, s, fakecloud.Service{Type: "volumev3", Path: s.Path, Region: s.Region})
		}
	}
	fc.Catalog = catalog
	ps := make([]fakecloud.Project, 0, c.NumProjects())
	for p := 0; p < c.NumProjects(); p++ {
		ps = append(ps, fakecloud.Project{ID: d.projectID(p), Name: d.projectName(p)})
	}
	fc.AddProjects(ps...)
	for _, r := range c.routes() {
		fc.Handle(r.decl, c.handler(r.h)).Optional("the synthetic cloud's API: a job reads a part of it")
	}
	return c, nil
}

// Config is the cloud's configuration with defaults applied.
func (c *Cloud) Config() Config { return c.cfg }

// Reset zeroes the counters (between benchmark runs).
func (c *Cloud) Reset() {
	c.Cloud.Reset()
	c.mu.Lock()
	c.lists = nil
	c.mu.Unlock()
}

// Stats returns a copy of the counters.
func (c *Cloud) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stats{Stats: c.Cloud.Stats(), ServerLists: append([]string(nil), c.lists...)}
}

// request is one call with its token's project.
type request struct {
	*http.Request
	c       *Cloud
	project int // project index of the token; -1 none of the cloud's
}

func (c *Cloud) handler(h func(http.ResponseWriter, *request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, ok := c.d.projectIndex(c.TokenProject(r))
		if !ok {
			p = -1
		}
		h(w, &request{Request: r, c: c, project: p})
	}
}

type route struct {
	decl string
	h    func(http.ResponseWriter, *request)
}

// routes are the requests the cloud serves, with the query parameters
// each accepts ({id} is one path segment).
func (c *Cloud) routes() []route {
	return []route{
		// Keystone (tokens and projects: the fake's own)
		{"GET /identity/", hIdentityVersions},
		{"GET /identity/v3", hIdentityVersion},
		{"GET /identity/v3/", hIdentityVersion},
		{"GET /identity/v3/users?[name=*]&[domain_id=*]&[enabled=*]", hUsers},
		{"GET /identity/v3/users/{id}", hUser},
		{"GET /identity/v3/roles?[name=*]", hRoles},
		{"GET /identity/v3/role_assignments?[effective=*]&[include_names=*]&[scope.project.id=*]&[user.id=*]&[role.id=*]", hRoleAssignments},
		// Nova
		{"GET /compute/", hComputeVersions},
		{"GET /compute/v2.1", hComputeVersion},
		{"GET /compute/v2.1/", hComputeVersion},
		{"GET /compute/v2.1/servers/detail?[all_tenants=*]&[project_id=*]&[limit=*]&[marker=*]", hServers},
		{"GET /compute/v2.1/servers/{id}", hServer},
		{"GET /compute/v2.1/os-hypervisors/detail?[limit=*]&[marker=*]", hHypervisors},
		{"GET /compute/v2.1/os-services?[binary=*]&[host=*]", hServices},
		{"GET /compute/v2.1/flavors/detail?[is_public=*]&[limit=*]&[marker=*]", hFlavors},
		{"GET /compute/v2.1/flavors/{id}", hFlavor},
		// Glance
		{"GET /image/", hImageVersions},
		{"GET /image/v2/images?[limit=*]&[marker=*]&[name=*]&[visibility=*]&[status=*]&[sort_key=*]&[sort_dir=*]&[member_status=*]&[os_hidden=*]", hImages},
		{"GET /image/v2/images/{id}", hImage},
		// Placement
		{"GET /placement/", hPlacementVersions},
		{"GET /placement/resource_providers?[required=*]&[name=*]&[uuid=*]", hProviders},
		{"GET /placement/resource_providers/{id}/traits", hProviderTraits},
		// Barbican
		{"GET /key-manager/", hBarbicanVersions},
		{"GET /key-manager/v1", hBarbicanVersion},
		{"GET /key-manager/v1/", hBarbicanVersion},
		{"GET /key-manager/v1/secrets?[name=*]&[limit=*]&[offset=*]&[secret_type=*]&[sort=*]", hSecrets},
		{"GET /key-manager/v1/secrets/{id}", hSecret},
		{"GET /key-manager/v1/secrets/{id}/acl", hSecretACL},
		// Cinder (the endpoint carries the project, as devcloud's does)
		{"GET /volume/v3/{id}/volumes/detail?[all_tenants=*]&[project_id=*]&[limit=*]&[marker=*]", hVolumes},
	}
}
