package fakecloud

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// The fake's Keystone: password login of admin, tokens scoped to a
// project, the catalog pointing at the fake, and (once projects are
// added) the project list. Every other service's request must carry a
// token it issued: a client that lost its token cannot pass.

// Service is one catalog endpoint: its type and path on the fake's URL,
// "{project}" standing for the token's project, and its region ("": the
// Cloud's Region, IdentityRegion for identity). Endpoints of one type
// are listed under one catalog entry, as Keystone does: two regions
// sharing one key manager are two key-manager Services, one Path.
type Service struct{ Type, Path, Region string }

// Role is one of the roles a token carries.
type Role struct{ ID, Name string }

// User is the user a token names.
type User struct{ ID, Name string }

// Project is one Keystone project: tokens scope to it, lists show it.
type Project struct {
	ID, Name string
	// Doc is the object Keystone answers for it (a captured fixture's);
	// nil: built from ID and Name as Keystone shows one.
	Doc map[string]any
}

type keystone struct {
	// Catalog is what a token lists, Region's (identity IdentityRegion's).
	Catalog []Service
	// Admin is the user that logs in (with Password) and tokens name.
	Admin User
	// Roles are a token's roles.
	Roles []Role
	// AnyProject: a token scopes to any project ID (the tests' made-up
	// ones; unknown names get "p-" and the ID's first digits). False:
	// only to the added projects, by ID or name, else 401 as Keystone.
	AnyProject bool
	// ListLimit is Keystone's list_limit (0: none): a longer project
	// list is cut there and says "truncated": true.
	ListLimit int

	projects []Project
	byID     map[string]int
	byName   map[string]int
	tokens   map[string]string // valid token -> project ID
	revoked  map[string]bool
	issues   map[string]int // tokens issued per project after a revoke
}

func (k *keystone) init() {
	k.Catalog = []Service{{Type: "identity", Path: "/identity/v3/"}, {Type: "compute", Path: "/compute/v2.1/"}, {Type: "image", Path: "/image/"},
		{Type: "key-manager", Path: "/key-manager/"}, {Type: "placement", Path: "/placement/"}, {Type: "block-storage", Path: "/volume/v3/{project}/"}}
	k.Admin = User{UserID, "admin"}
	k.Roles = []Role{{"r1", "admin"}, {"r2", "member"}}
	k.AnyProject = true
	k.byID, k.byName = map[string]int{}, map[string]int{}
	k.tokens = map[string]string{Token: ProjectID}
	k.revoked, k.issues = map[string]bool{}, map[string]int{}
}

// TokenFor is the first token the fake issues for project: Token for
// ProjectID, the one ServiceClient carries.
func TokenFor(project string) string {
	if project == ProjectID {
		return Token
	}
	return Token + "-" + project
}

// AddProjects makes Keystone know ps: tokens scope to them by ID or name,
// and GET /identity/v3/projects (by name, or all) and
// /identity/v3/projects/{id} answer them.
func (c *Cloud) AddProjects(ps ...Project) {
	c.mu.Lock()
	first := len(c.projects) == 0
	for _, p := range ps {
		c.byID[p.ID], c.byName[p.Name] = len(c.projects), len(c.projects)
		c.projects = append(c.projects, p)
	}
	c.mu.Unlock()
	if first {
		c.Handle(Projects, c.listProjects).Optional("Keystone's project API: a command reads it when it audits projects")
		c.Handle("GET /identity/v3/projects/{id}", c.getProject).Optional("Keystone's project API")
	}
}

// Token is a valid token scoped to project (issued now if none is),
// for clients a test builds itself.
func (c *Cloud) Token(project string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tokenLocked(project)
}

func (c *Cloud) tokenLocked(project string) string {
	tok := TokenFor(project)
	if n := c.issues[project]; n > 0 {
		tok = fmt.Sprintf("%s-%d", tok, n)
	}
	c.tokens[tok] = project
	return tok
}

// AddToken makes token valid, scoped to project: for a test that answers
// the token API itself (tokens it names, to find them in output).
func (c *Cloud) AddToken(token, project string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tokens[token] = project
}

// Revoke expires a token: requests carrying it answer 401 (not a test
// failure: a client then logs in again) and the next login for its
// project gets a new one.
func (c *Cloud) Revoke(token string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.tokens[token]; ok {
		delete(c.tokens, token)
		c.revoked[token] = true
		c.issues[p]++
	}
}

// TokenProject is the project of the request's token ("" none valid).
func (c *Cloud) TokenProject(r *http.Request) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tokens[r.Header.Get("X-Auth-Token")]
}

// versionDoc: the part of a path after its service (/compute/v2.1/) that
// is a version document, which needs no token.
var versionDoc = regexp.MustCompile(`^/[a-z-]+/(v[0-9][0-9.]*/?)?$`)

// authorized answers 401 for a service request without a valid token.
// Keystone's token API, version documents and paths outside the catalog
// (a transport test's own) need none.
func (c *Cloud) authorized(w http.ResponseWriter, r *http.Request) bool {
	p := r.URL.Path
	if versionDoc.MatchString(p) || r.Method == "POST" && p == "/identity/v3/auth/tokens" || !c.inCatalog(p) {
		return true
	}
	tok := r.Header.Get("X-Auth-Token")
	c.mu.Lock()
	_, ok := c.tokens[tok]
	revoked := c.revoked[tok]
	c.mu.Unlock()
	if ok {
		return true
	}
	if !revoked {
		c.report("fakecloud: %s %s without a token Keystone issued (%q)", r.Method, r.URL.RequestURI(), tok)
	}
	Reply(w, 401, map[string]any{"error": map[string]any{"code": 401, "message": "The request you have made requires authentication.", "title": "Unauthorized"}})
	return false
}

func (c *Cloud) inCatalog(p string) bool {
	for _, s := range c.Catalog {
		first, _, _ := strings.Cut(strings.TrimPrefix(s.Path, "/"), "/")
		if strings.HasPrefix(p, "/"+first+"/") {
			return true
		}
	}
	return false
}

// issueToken is POST /identity/v3/auth/tokens: admin with Password,
// scoped to a project by ID or name.
func (c *Cloud) issueToken(w http.ResponseWriter, r *http.Request) {
	if c.TokenStatus != 0 {
		JSON(c.TokenStatus, c.TokenBody)(w, r)
		return
	}
	var req struct {
		Auth struct {
			Identity struct {
				Password struct {
					User struct{ Name, Password string } `json:"user"`
				} `json:"password"`
			} `json:"identity"`
			Scope struct {
				Project struct{ ID, Name string } `json:"project"`
			} `json:"scope"`
		} `json:"auth"`
	}
	unauthorized := func() {
		Reply(w, 401, map[string]any{"error": map[string]any{"code": 401, "message": "The request you have made requires authentication.", "title": "Unauthorized"}})
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		Reply(w, 400, map[string]any{"error": map[string]any{"code": 400, "message": err.Error()}})
		return
	}
	if u := req.Auth.Identity.Password.User; u.Name != c.Admin.Name || u.Password != Password {
		unauthorized()
		return
	}
	sc := req.Auth.Scope.Project
	if sc.ID == "" && sc.Name == "" {
		sc.ID = ProjectID // unscoped: the default project's
	}
	c.mu.Lock()
	i, known := c.byID[sc.ID]
	if sc.ID == "" {
		i, known = c.byName[sc.Name]
	}
	project := Project{ID: sc.ID, Name: "p-" + sc.ID[:min(4, len(sc.ID))]}
	if known {
		project = c.projects[i]
	}
	if !known && (!c.AnyProject || sc.ID == "") {
		c.mu.Unlock()
		unauthorized()
		return
	}
	tok := c.tokenLocked(project.ID)
	c.mu.Unlock()
	dom := map[string]any{"id": "default", "name": "Default"}
	var catalog []map[string]any
	entry := map[string]int{} // type -> index in catalog
	for _, s := range c.Catalog {
		region := s.Region
		switch {
		case region != "":
		case s.Type == "identity":
			region = c.IdentityRegion
		default:
			region = c.Region
		}
		i, ok := entry[s.Type]
		if !ok {
			i, entry[s.Type] = len(catalog), len(catalog)
			catalog = append(catalog, map[string]any{"type": s.Type, "name": s.Type, "id": s.Type, "endpoints": []map[string]any{}})
		}
		eps := catalog[i]["endpoints"].([]map[string]any)
		id := s.Type + "-public"
		if len(eps) > 0 {
			id = fmt.Sprintf("%s-%s-public-%d", s.Type, region, len(eps))
		}
		catalog[i]["endpoints"] = append(eps, map[string]any{"interface": "public", "region": region, "region_id": region, "id": id,
			"url": c.URL + strings.ReplaceAll(s.Path, "{project}", project.ID)})
	}
	var roles []map[string]any
	for _, ro := range c.Roles {
		roles = append(roles, map[string]any{"id": ro.ID, "name": ro.Name})
	}
	body := map[string]any{"token": map[string]any{
		"methods": []string{"password"}, "expires_at": "2099-01-01T00:00:00.000000Z", "issued_at": "2026-01-01T00:00:00.000000Z",
		"user":    map[string]any{"id": c.Admin.ID, "name": c.Admin.Name, "domain": dom, "password_expires_at": nil},
		"project": map[string]any{"id": project.ID, "name": project.Name, "domain": dom},
		"roles":   roles, "catalog": catalog,
	}}
	w.Header().Set("X-Subject-Token", tok)
	Reply(w, 201, body)
}

func (c *Cloud) projectDoc(p Project) map[string]any {
	if p.Doc != nil {
		return p.Doc
	}
	return map[string]any{"id": p.ID, "name": p.Name, "domain_id": "default", "enabled": true, "is_domain": false,
		"parent_id": "default", "description": "", "tags": []string{}, "options": map[string]any{},
		"links": map[string]string{"self": c.URL + "/identity/v3/projects/" + p.ID}}
}

// listProjects: Keystone does not page; it filters by name and cuts a
// list longer than ListLimit ("truncated": true, no next link).
func (c *Cloud) listProjects(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	c.mu.Lock()
	ps := append([]Project(nil), c.projects...)
	c.mu.Unlock()
	out := []any{}
	for _, p := range ps {
		if name == "" || p.Name == name {
			out = append(out, c.projectDoc(p))
		}
	}
	body := map[string]any{"projects": out, "links": map[string]any{"self": c.URL + r.URL.RequestURI(), "next": nil, "previous": nil}}
	if l := c.ListLimit; l > 0 && len(out) > l {
		body["projects"], body["truncated"] = out[:l], true
	}
	Reply(w, 200, body)
}

func (c *Cloud) getProject(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	i, ok := c.byID[r.PathValue("id")]
	var p Project
	if ok {
		p = c.projects[i]
	}
	c.mu.Unlock()
	if !ok {
		NotFound(w, "project")
		return
	}
	Reply(w, 200, map[string]any{"project": c.projectDoc(p)})
}

// AddRegion lists region in the catalog with a Nova of its own at
// computePath ("/compute-two/v2.1/", whose routes the test declares)
// and, when sharedKeyManager, the key manager's endpoint too, at the
// same URL as the Cloud's Region: one Barbican two regions share. Call
// it before a session logs in (the catalog is its token's).
func (c *Cloud) AddRegion(region, computePath string, sharedKeyManager bool) {
	c.Catalog = append(c.Catalog, Service{Type: "compute", Path: computePath, Region: region})
	if !sharedKeyManager {
		return
	}
	for _, s := range c.Catalog {
		if s.Type == "key-manager" && s.Region == "" {
			c.Catalog = append(c.Catalog, Service{Type: "key-manager", Path: s.Path, Region: region})
			return
		}
	}
}
