package scalecloud

import (
	"context"
	"fmt"
	"hash/fnv"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
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
}

// Cloud is a running synthetic cloud.
type Cloud struct {
	URL string
	cfg Config
	srv *http.Server
	ln  net.Listener
	d   *data

	mu         sync.Mutex
	counts     map[string]int
	unexpected []string
	nUnexp     int
	conns      atomic.Int64
	inflight   atomic.Int64
	maxInfl    atomic.Int64
	tokens     atomic.Int64
	firstOn    map[string]int // route of each connection's first request
	lists      []string       // each server list's first-page query
}

// connKey carries a connection's "first request seen" flag.
type connKey struct{}

// Stats is what the cloud saw since the last Reset.
type Stats struct {
	Requests    int            // every request, expected or not
	ByRoute     map[string]int // "GET /compute/v2.1/servers/detail"
	Connections int            // TCP connections accepted
	MaxInFlight int            // most requests served at once
	Unexpected  []string       // routes or parameters it does not serve (first 100)
	NUnexpected int
	// ConnFirstRoute counts connections by the route of their first
	// request: which calls open new connections.
	ConnFirstRoute map[string]int
	// ServerLists is the query of each server list's first page (no
	// marker), in order: what a run asked Nova to list.
	ServerLists []string
}

// New builds the cloud's data and starts serving on 127.0.0.1.
func New(cfg Config) (*Cloud, error) {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&cfg.Guests, 2000)
	def(&cfg.Projects, 20)
	def(&cfg.Hypervisors, 100)
	def(&cfg.Images, 20)
	if cfg.Others < 0 {
		cfg.Others = 0
	}
	if cfg.Users <= 0 {
		cfg.Users = 5 * cfg.Projects
	}
	if cfg.VolumeBacked < 0 {
		cfg.VolumeBacked = 0
	}
	if cfg.OtherSecrets < 0 {
		cfg.OtherSecrets = 0
	}
	switch cfg.Paging {
	case "":
		cfg.Paging = "old"
	case "old", "new":
	default:
		return nil, fmt.Errorf("scalecloud: paging %q: old or new", cfg.Paging)
	}
	if cfg.Microversion == "" {
		cfg.Microversion = "2.93"
	}
	if _, err := parseMV(cfg.Microversion); err != nil {
		return nil, fmt.Errorf("scalecloud: microversion: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	h := fnv.New32a()
	fmt.Fprint(h, cfg.Seed)
	c := &Cloud{cfg: cfg, ln: ln, URL: "http://" + ln.Addr().String(), counts: map[string]int{}}
	c.d = newData(cfg, h.Sum32())
	c.firstOn = map[string]int{}
	c.srv = &http.Server{Handler: http.HandlerFunc(c.serve), ConnContext: func(ctx context.Context, _ net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, new(atomic.Bool))
	}, ConnState: func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			c.conns.Add(1)
		}
	}}
	go c.srv.Serve(ln)
	return c, nil
}

// Config is the cloud's configuration with defaults applied.
func (c *Cloud) Config() Config { return c.cfg }

// Close stops the server.
func (c *Cloud) Close() error { return c.srv.Shutdown(context.Background()) }

// Reset zeroes the counters (between benchmark runs). Idle keep-alive
// connections of a finished client are closed by the client's exit.
func (c *Cloud) Reset() {
	c.mu.Lock()
	c.counts, c.unexpected, c.nUnexp, c.firstOn, c.lists = map[string]int{}, nil, 0, map[string]int{}, nil
	c.mu.Unlock()
	c.conns.Store(0)
	c.maxInfl.Store(0)
}

// Stats returns a copy of the counters.
func (c *Cloud) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := Stats{ByRoute: map[string]int{}, Connections: int(c.conns.Load()), MaxInFlight: int(c.maxInfl.Load()),
		Unexpected: append([]string(nil), c.unexpected...), NUnexpected: c.nUnexp, ServerLists: append([]string(nil), c.lists...)}
	for k, v := range c.counts {
		s.ByRoute[k] = v
		s.Requests += v
	}
	s.ConnFirstRoute = map[string]int{}
	for k, v := range c.firstOn {
		s.ConnFirstRoute[k] = v
	}
	return s
}

// Routes lists ByRoute sorted by count, highest first.
func (s Stats) Routes() []string { return sorted(s.ByRoute) }

// ConnRoutes lists ConnFirstRoute the same way.
func (s Stats) ConnRoutes() []string { return sorted(s.ConnFirstRoute) }

func sorted(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	for i, k := range keys {
		keys[i] = fmt.Sprintf("%6d %s", m[k], k)
	}
	return keys
}

func (c *Cloud) count(route string) {
	c.mu.Lock()
	c.counts[route]++
	c.mu.Unlock()
}

// refuse answers 501 for what the fake does not serve and records it.
func (c *Cloud) refuse(w http.ResponseWriter, r *http.Request, why string) {
	c.mu.Lock()
	c.nUnexp++
	if len(c.unexpected) < 100 {
		c.unexpected = append(c.unexpected, r.Method+" "+r.URL.RequestURI()+": "+why)
	}
	c.mu.Unlock()
	writeJSON(w, http.StatusNotImplemented, map[string]any{"error": "scalecloud: " + why})
}

func (c *Cloud) serve(w http.ResponseWriter, r *http.Request) {
	n := c.inflight.Add(1)
	defer c.inflight.Add(-1)
	for {
		m := c.maxInfl.Load()
		if n <= m || c.maxInfl.CompareAndSwap(m, n) {
			break
		}
	}
	rt, ok := c.route(r)
	name := "UNEXPECTED"
	if ok {
		name = r.Method + " " + rt.template
	}
	c.count(name)
	if seen, _ := r.Context().Value(connKey{}).(*atomic.Bool); seen != nil && !seen.Swap(true) {
		c.mu.Lock()
		c.firstOn[name]++
		c.mu.Unlock()
	}
	if !ok {
		c.refuse(w, r, "no such route")
		return
	}
	for k := range r.URL.Query() {
		if !rt.params[k] {
			c.refuse(w, r, "query parameter "+k+" not served on "+rt.template)
			return
		}
	}
	req := &request{Request: r, c: c, args: rt.args}
	if !rt.anonymous {
		p, ok := c.d.tokenProject(r.Header.Get("X-Auth-Token"))
		if !ok {
			writeJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{"code": 401, "message": "The request you have made requires authentication.", "title": "Unauthorized"}})
			return
		}
		req.project = p
	}
	rt.h(w, req)
}

// request is one call with its path arguments and token's project.
type request struct {
	*http.Request
	c       *Cloud
	args    []string
	project int // project index of the token
}

type route struct {
	template  string
	h         func(http.ResponseWriter, *request)
	params    map[string]bool
	args      []string
	anonymous bool // version documents and token issue
}

func set(keys ...string) map[string]bool {
	m := map[string]bool{}
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// route matches a request against the served templates ({id} is one
// path segment).
func (c *Cloud) route(r *http.Request) (route, bool) {
	path := r.URL.Path
	for _, t := range c.routes() {
		if t.method != r.Method {
			continue
		}
		if args, ok := match(t.template, path); ok {
			return route{template: t.template, h: t.h, params: t.params, args: args, anonymous: t.anonymous}, true
		}
	}
	return route{}, false
}

type routeDef struct {
	method, template string
	params           map[string]bool
	h                func(http.ResponseWriter, *request)
	anonymous        bool
}

func match(tmpl, path string) ([]string, bool) {
	if tmpl == path {
		return nil, true
	}
	ts, ps := strings.Split(tmpl, "/"), strings.Split(path, "/")
	if len(ts) != len(ps) {
		return nil, false
	}
	var args []string
	for i := range ts {
		switch {
		case ts[i] == "{id}" && ps[i] != "":
			args = append(args, ps[i])
		case ts[i] != ps[i]:
			return nil, false
		}
	}
	return args, true
}

var routeTable []routeDef
var routeOnce sync.Once

func (c *Cloud) routes() []routeDef {
	routeOnce.Do(func() {
		none := set()
		routeTable = []routeDef{
			// Keystone
			{"GET", "/", none, hIdentityVersions, true},
			{"GET", "/v3", none, hIdentityVersion, true},
			{"GET", "/v3/", none, hIdentityVersion, true},
			{"POST", "/v3/auth/tokens", none, hToken, true},
			{"GET", "/v3/projects", set("name", "domain_id", "enabled"), hProjects, false},
			{"GET", "/v3/projects/{id}", none, hProject, false},
			{"GET", "/v3/users", set("name", "domain_id", "enabled"), hUsers, false},
			{"GET", "/v3/users/{id}", none, hUser, false},
			{"GET", "/v3/roles", set("name"), hRoles, false},
			{"GET", "/v3/role_assignments", set("effective", "include_names", "scope.project.id", "user.id", "role.id"), hRoleAssignments, false},
			// Nova
			{"GET", "/compute/", none, hComputeVersions, true},
			{"GET", "/compute/v2.1", none, hComputeVersion, true},
			{"GET", "/compute/v2.1/", none, hComputeVersion, true},
			{"GET", "/compute/v2.1/servers/detail", set("all_tenants", "project_id", "limit", "marker"), hServers, false},
			{"GET", "/compute/v2.1/servers/{id}", none, hServer, false},
			{"GET", "/compute/v2.1/os-hypervisors/detail", set("limit", "marker"), hHypervisors, false},
			{"GET", "/compute/v2.1/os-services", set("binary", "host"), hServices, false},
			{"GET", "/compute/v2.1/flavors/detail", set("is_public", "limit", "marker"), hFlavors, false},
			{"GET", "/compute/v2.1/flavors/{id}", none, hFlavor, false},
			// Glance
			{"GET", "/image/", none, hImageVersions, true},
			{"GET", "/image/v2/images", set("limit", "marker", "name", "visibility", "status", "sort_key", "sort_dir", "member_status", "os_hidden"), hImages, false},
			{"GET", "/image/v2/images/{id}", none, hImage, false},
			// Placement
			{"GET", "/placement/", none, hPlacementVersions, true},
			{"GET", "/placement/resource_providers", set("required", "name", "uuid"), hProviders, false},
			{"GET", "/placement/resource_providers/{id}/traits", none, hProviderTraits, false},
			// Barbican
			{"GET", "/key-manager/", none, hBarbicanVersions, true},
			{"GET", "/key-manager/v1", none, hBarbicanVersion, true},
			{"GET", "/key-manager/v1/", none, hBarbicanVersion, true},
			{"GET", "/key-manager/v1/secrets", set("name", "limit", "offset", "secret_type", "sort"), hSecrets, false},
			{"GET", "/key-manager/v1/secrets/{id}", none, hSecret, false},
			{"GET", "/key-manager/v1/secrets/{id}/acl", none, hSecretACL, false},
			// Cinder (the endpoint carries the project, as devcloud's does)
			{"GET", "/volume/v3/{id}/volumes/detail", set("all_tenants", "project_id", "limit", "marker"), hVolumes, false},
		}
	})
	return routeTable
}
