package secrets

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
	"github.com/vtpmctl/vtpmctl/openstack/barbican"
)

// fakeCloud is a Barbican + Keystone for Gather on a strict fakecloud: it
// answers only the requests vtpmctl must send, each with its query and
// microversion (any other method, path, query parameter, missing filter
// or microversion header fails the test), and counts them by kind.
// Barbican pages in either style: old (Zed … 2025.1: the next link keeps
// limit and offset only, dropping the name filter) or new (the next link
// keeps every filter).
type fakeCloud struct {
	*fakecloud.Cloud
	oldPaging bool
	// ignoreOffset: every page is the first (a broken or hostile server).
	ignoreOffset bool
	// maxLimit is Barbican's max_limit_paging when set: pages hold at
	// most that many, whatever limit was asked for.
	maxLimit int
	// usersList, rolesList: status of GET /v3/users and of the unscoped
	// role assignment list (0: 200); usersHidden exist but are not listed
	// (LDAP, another domain).
	usersList, rolesList int
	secrets              map[string][]fakeSecret // project -> in Barbican's order
	users                map[string]fakeUser
	usersHidden          map[string]bool
	members              map[string][]string // project -> user IDs with a role
	// listStatus: status of a project's secret list (0: 200).
	listStatus map[string]int
	// api is the key manager's max microversion: "" is a Barbican before
	// microversions (1.0: no header, no max_version, consumers unknown).
	api string

	// aclDelay holds each ACL answer so concurrent reads overlap.
	aclDelay time.Duration
	// detected: the versions document was served (DetectAPI); from then
	// on a list at api 1.1+ must ask for the consumers' microversion.
	detected atomic.Bool

	mu     sync.Mutex
	counts map[string]int
}

type fakeSecret struct {
	id, name, creator string
	ref               string // secret_ref when not the secret's own URL
	consumers         []vtpmsecret.Consumer
}

type fakeUser struct {
	name    string
	enabled bool
}

// secretList is barbican.ListSecrets' request: the vTPM name filter (a
// list without it is every secret of the project), a page of secretPage,
// an offset (on a page's boundary: listSecrets checks).
var secretList = "GET /key-manager/v1/secrets?name=" + url.QueryEscape(vtpmsecret.NamePrefix+"%") + "&limit=" + strconv.Itoa(secretPage) + "&offset=*"

func newFakeCloud(t testing.TB) *fakeCloud {
	// a benchmark's fake keeps no records: it counts
	_, bench := t.(*testing.B)
	c := &fakeCloud{Cloud: fakecloud.NewWith(t, fakecloud.Options{NoRecord: bench}), secrets: map[string][]fakeSecret{},
		users: map[string]fakeUser{}, usersHidden: map[string]bool{}, members: map[string][]string{}, counts: map[string]int{}}
	// the services as vtpmctl reads them: each test reads a part
	const api = "the fake Barbican and Keystone: a test reads a part"
	for decl, kind := range map[string]string{
		"GET /key-manager/":                           "versions",
		secretList:                                    "secrets",
		"GET /key-manager/v1/secrets/{id}/acl":        "acl",
		"POST /key-manager/v1/secrets/{id}/consumers": "consumer-post",
		"GET /identity/v3/users?[name=nova]":          "users", // every user, or novaNamedUsers
		"GET /identity/v3/users/{id}":                 "user",
		"GET /identity/v3/role_assignments?effective=true&[scope.project.id=*]": "roles",
	} {
		c.Handle(decl, c.serve(kind)).Optional(api)
	}
	return c
}

func fakeUUID(a, b int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", a, b) }

// addSecrets gives project vtpm vTPM-named secrets (instances fakeUUID(9, i+base))
// and others non-vTPM ones, shuffled together as Barbican's order would.
func (c *fakeCloud) addSecrets(project string, pi, base, vtpm, others int, creator func(i int) string) {
	var l []fakeSecret
	for i := 0; i < vtpm; i++ {
		l = append(l, fakeSecret{id: fakeUUID(pi, i), name: vtpmsecret.NamePrefix + fakeUUID(9, base+i), creator: creator(i)})
	}
	for i := 0; i < others; i++ {
		l = append(l, fakeSecret{id: fakeUUID(pi, 100000+i), name: fmt.Sprintf("db password %d", i), creator: creator(i)})
	}
	r := rand.New(rand.NewSource(int64(pi)))
	r.Shuffle(len(l), func(i, j int) { l[i], l[j] = l[j], l[i] })
	c.secrets[project] = append(c.secrets[project], l...)
}

func (c *fakeCloud) count(kind string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[kind]
}

// total is every request the fake received.
func (c *fakeCloud) total() int { return c.Stats().Requests }

// requests are the request URIs received, in order.
func (c *fakeCloud) requests() []string {
	var out []string
	for _, r := range c.Sent() {
		u := url.URL{Path: r.Path, RawQuery: r.Query.Encode()}
		out = append(out, u.RequestURI())
	}
	return out
}

// sources: Identity and a per-project Barbican client (same endpoint, the
// project's own token, as secrets audit builds them).
func (c *fakeCloud) sources(projects ...string) Sources {
	km := func(_ context.Context, p string) (*gophercloud.ServiceClient, error) {
		sc := c.ServiceClient("key-manager")
		sc.ProviderClient.SetToken(c.Token(p))
		return sc, nil
	}
	return Sources{Identity: c.ServiceClient("identity/v3"), KeyManager: km, Projects: projects, ReadACLs: true, Limit: 8,
		Release: nova.Zed, AllTenants: true, Inventory: &nova.Inventory{}}
}

// secretPage is the page barbican.ListSecrets asks for (Barbican's cap).
const secretPage = 100

// serve answers a request of kind, counted, at the microversion vtpmctl
// must ask for it.
func (c *fakeCloud) serve(route string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q, kind := r.URL.Query(), route
		if kind == "roles" && !q.Has("scope.project.id") {
			kind = "roles-all"
		}
		c.mu.Lock()
		c.counts[kind]++
		c.mu.Unlock()
		if !c.microversionOK(w, r, kind) {
			return
		}
		switch kind {
		case "versions":
			c.versions(w)
		case "consumer-post":
			c.postConsumer(w, r)
		case "secrets":
			c.listSecrets(w, r)
		case "acl":
			time.Sleep(c.aclDelay)
			fakecloud.Reply(w, 200, map[string]any{"read": map[string]any{"project-access": true, "users": []string{}}})
		case "users":
			if c.usersList != 0 {
				fakecloud.Reply(w, c.usersList, map[string]any{"error": map[string]any{"code": c.usersList}})
				return
			}
			var l []map[string]any
			for id, u := range c.users {
				if !c.usersHidden[id] && (!q.Has("name") || q.Get("name") == u.name) {
					l = append(l, map[string]any{"id": id, "name": u.name, "enabled": u.enabled, "domain_id": "default"})
				}
			}
			fakecloud.Reply(w, 200, map[string]any{"users": l, "links": map[string]any{"next": nil}})
		case "user":
			id := r.PathValue("id")
			u, ok := c.users[id]
			if !ok {
				fakecloud.Reply(w, 404, map[string]any{"error": map[string]any{"code": 404}})
				return
			}
			fakecloud.Reply(w, 200, map[string]any{"user": map[string]any{"id": id, "name": u.name, "enabled": u.enabled, "domain_id": "default"}})
		case "roles", "roles-all":
			c.listRoles(w, kind, q.Get("scope.project.id"))
		}
	}
}

func (c *fakeCloud) listRoles(w http.ResponseWriter, kind, project string) {
	if kind == "roles-all" && c.rolesList != 0 {
		fakecloud.Reply(w, c.rolesList, map[string]any{"error": map[string]any{"code": c.rolesList}})
		return
	}
	a := func(scope map[string]any, user string) map[string]any {
		return map[string]any{"role": map[string]any{"id": "r-member"}, "scope": scope, "user": map[string]any{"id": user}}
	}
	var l []map[string]any
	for p, us := range c.members {
		if kind == "roles" && p != project {
			continue
		}
		for _, u := range us {
			l = append(l, a(map[string]any{"project": map[string]any{"id": p}}, u))
		}
	}
	if kind == "roles-all" { // what an unscoped list holds besides projects
		l = append(l, a(map[string]any{"domain": map[string]any{"id": "default"}}, "domain-admin"),
			a(map[string]any{"system": map[string]any{"all": true}}, "system-admin"))
	}
	fakecloud.Reply(w, 200, map[string]any{"role_assignments": l, "links": map[string]any{"next": nil}})
}

// listSecrets is Barbican's GET /v1/secrets for the token's project: name
// as SQL LIKE (a trailing %), then offset and limit, and a next link while
// more remain — without the name in the old style (fakecloud.Offsets).
func (c *fakeCloud) listSecrets(w http.ResponseWriter, r *http.Request) {
	project := c.TokenProject(r)
	if st := c.listStatus[project]; st != 0 {
		fakecloud.Reply(w, st, map[string]any{"code": st, "title": http.StatusText(st)})
		return
	}
	pg := fakecloud.Offsets{Old: c.oldPaging, MaxLimit: c.maxLimit, IgnoreOffset: c.ignoreOffset}
	q := r.URL.Query()
	page := secretPage
	if c.maxLimit > 0 && c.maxLimit < page {
		page = c.maxLimit
	}
	if off, err := strconv.Atoi(q.Get("offset")); err != nil || off%page != 0 {
		c.Errorf("fake cloud: %s: the offset is not on a page's boundary (%d)", r.URL.RequestURI(), page)
		fakecloud.Reply(w, 400, map[string]any{"error": "unexpected"})
		return
	}
	name := q.Get("name")
	var match []fakeSecret
	for _, s := range c.secrets[project] {
		if name == "" || s.name == name || strings.HasSuffix(name, "%") && strings.HasPrefix(s.name, strings.TrimSuffix(name, "%")) {
			match = append(match, s)
		}
	}
	from, to, limit := pg.Page(r, len(match))
	base := "http://" + r.Host + "/key-manager/v1/secrets"
	body := map[string]any{"total": len(match)}
	var entries []map[string]any
	for _, s := range match[from:to] {
		ref := base + "/" + s.id
		if s.ref != "" {
			ref = s.ref
		}
		e := map[string]any{"name": s.name, "secret_ref": ref, "creator_id": s.creator,
			"secret_type": "passphrase", "status": "ACTIVE", "created": "2026-01-02T03:04:05.000000", "expiration": nil}
		if r.Header.Get("OpenStack-API-Version") != "" { // 1.1+: Barbican adds them, created and all
			cs := []map[string]any{}
			for _, k := range s.consumers {
				cs = append(cs, map[string]any{"service": k.Service, "resource_type": k.ResourceType, "resource_id": k.ResourceID, "created": "2026-01-03T00:00:00"})
			}
			e["consumers"] = cs
		}
		entries = append(entries, e)
	}
	body["secrets"] = entries
	if next, _ := pg.Links(r, base, len(match), from, limit); next != "" {
		body["next"] = next
	}
	fakecloud.Reply(w, 200, body)
}

// microversionOK is the microversion middleware: a Barbican before 1.1
// has none and ignores the header, but vtpmctl must never send one to it
// past the versions document (no trial requests); a version above the
// max is 406 as microversion_parse answers.
func (c *fakeCloud) microversionOK(w http.ResponseWriter, r *http.Request, kind string) bool {
	h := r.Header.Get("OpenStack-API-Version")
	if want := c.wantMicroversion(kind); h != want {
		c.Errorf("fake cloud: %s %s asks for microversion %q, want %q", r.Method, r.URL.RequestURI(), h, want)
		http.Error(w, `{"error":"microversion"}`, 400)
		return false
	}
	if h == "" || kind == "versions" {
		if kind == "versions" {
			c.detected.Store(true)
		}
		return true
	}
	if c.api == "" {
		c.Errorf("fake cloud: %s %s asks for %q of a key manager without microversions", r.Method, r.URL.Path, h)
		http.Error(w, `{"error":"microversion"}`, 400)
		return false
	}
	v := strings.TrimPrefix(h, "key-manager ")
	if v == h || v > c.api || v < "1.0" {
		fakecloud.Reply(w, 406, map[string]any{"error": "Unacceptable version header: " + h})
		return false
	}
	return true
}

// wantMicroversion is the header vtpmctl must send for a request of kind:
// "latest" to read the versions (else a microversioned Barbican answers
// at 1.0), 1.1 for a consumer write and, once the API is known to have
// them, for the list that carries consumers; none to Keystone or for an
// ACL.
func (c *fakeCloud) wantMicroversion(kind string) string {
	switch kind {
	case "versions":
		return "key-manager latest"
	case "consumer-post":
		return "key-manager " + barbican.ConsumersMicroversion
	case "secrets":
		if c.detected.Load() && c.api >= barbican.ConsumersMicroversion {
			return "key-manager " + barbican.ConsumersMicroversion
		}
	}
	return ""
}

// versions is GET / of the key manager: the old document, or with
// microversions the list with max_version and the header (for "latest").
func (c *fakeCloud) versions(w http.ResponseWriter) {
	if c.api == "" {
		fakecloud.Reply(w, 300, map[string]any{"versions": map[string]any{"values": []any{map[string]any{"id": "v1", "status": "stable"}}}})
		return
	}
	w.Header().Set("OpenStack-API-Version", "key-manager "+c.api)
	fakecloud.Reply(w, 300, map[string]any{"versions": []any{map[string]any{"id": "v1", "status": "CURRENT", "min_version": "1.0", "max_version": c.api}}})
}

// postConsumer is POST /v1/secrets/{id}/consumers at 1.1: the token's
// project's secret only (another's is not found), the three fields, the
// same consumer once (create_or_update_from).
func (c *fakeCloud) postConsumer(w http.ResponseWriter, r *http.Request) {
	project := c.TokenProject(r)
	id := r.PathValue("id")
	var body map[string]string
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || len(body) != 3 || body["service"] == "" || body["resource_type"] == "" || body["resource_id"] == "" ||
		r.Header.Get("OpenStack-API-Version") == "" {
		c.Errorf("fake cloud: bad consumer POST %v %v", body, err)
		fakecloud.Reply(w, 400, map[string]any{"title": "Bad Request"})
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.secrets[project] {
		s := &c.secrets[project][i]
		if s.id != id {
			continue
		}
		k := vtpmsecret.Consumer{Service: body["service"], ResourceType: body["resource_type"], ResourceID: body["resource_id"]}
		if !slices.Contains(s.consumers, k) {
			s.consumers = append(s.consumers, k)
		}
		fakecloud.Reply(w, 200, map[string]any{"secret_ref": "http://" + r.Host + "/key-manager/v1/secrets/" + id, "name": s.name})
		return
	}
	fakecloud.Reply(w, 404, map[string]any{"code": 404, "title": "Not Found", "description": "Secret not found."})
}
