package scalecloud

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// writeJSON answers as the OpenStack services do: one JSON value, no
// trailing newline, with Content-Length. A chunked answer (what Go sends
// past its 4 KiB buffer) ends in a zero chunk that a JSON decoder never
// reads, so the client could not reuse the connection: the bench would
// count connections a real cloud does not cause.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = 500, []byte(`{"error":"scalecloud: cannot encode"}`)
	}
	writeBody(w, status, b)
}

func writeBody(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}

func link(href, rel string) []map[string]string {
	return []map[string]string{{"href": href, "rel": rel}}
}

func hIdentityVersions(w http.ResponseWriter, r *request) {
	writeJSON(w, 300, map[string]any{"versions": map[string]any{"values": []any{
		map[string]any{"id": "v3.14", "status": "stable", "updated": "2020-04-07T00:00:00Z", "links": link(r.c.URL+"/v3/", "self")}}}})
}

func hIdentityVersion(w http.ResponseWriter, r *request) {
	writeJSON(w, 200, map[string]any{"version": map[string]any{"id": "v3.14", "status": "stable", "links": link(r.c.URL+"/v3/", "self")}})
}

// Password is admin's. Not "admin": vtpmctl scrubs the password from
// everything it prints, and a common word would be scrubbed from names.
const Password = "scale-Pw-5c1d"

// hToken: password auth of admin with Password, scoped to any project by ID or
// name; the catalog points at this server.
func hToken(w http.ResponseWriter, r *request) {
	var req struct {
		Auth struct {
			Identity struct {
				Methods  []string `json:"methods"`
				Password struct {
					User struct {
						Name     string `json:"name"`
						Password string `json:"password"`
					} `json:"user"`
				} `json:"password"`
			} `json:"identity"`
			Scope struct {
				Project struct {
					ID   string `json:"id"`
					Name string `json:"name"`
				} `json:"project"`
			} `json:"scope"`
		} `json:"auth"`
	}
	d := r.c.d
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, 400, map[string]any{"error": map[string]any{"code": 400, "message": err.Error()}})
		return
	}
	u := req.Auth.Identity.Password.User
	if u.Name != "admin" || u.Password != Password {
		writeJSON(w, 401, map[string]any{"error": map[string]any{"code": 401, "message": "The request you have made requires authentication.", "title": "Unauthorized"}})
		return
	}
	p, ok := pAdmin, true
	switch sc := req.Auth.Scope.Project; {
	case sc.ID != "":
		p, ok = d.projectIndex(sc.ID)
	case sc.Name != "":
		ok = false
		for i := 0; i < r.c.NumProjects(); i++ {
			if d.projectName(i) == sc.Name {
				p, ok = i, true
				break
			}
		}
	}
	if !ok {
		writeJSON(w, 401, map[string]any{"error": map[string]any{"code": 401, "message": "The request you have made requires authentication.", "title": "Unauthorized"}})
		return
	}
	ep := func(typ, path string) map[string]any {
		return map[string]any{"type": typ, "name": typ, "id": typ, "endpoints": []map[string]any{
			{"interface": "public", "region": "RegionOne", "region_id": "RegionOne", "url": r.c.URL + path, "id": typ + "-public"}}}
	}
	catalog := []map[string]any{ep("identity", "/v3/"), ep("compute", "/compute/v2.1"), ep("image", "/image/"), ep("key-manager", "/key-manager/"), ep("placement", "/placement/")}
	if r.c.cfg.VolumeBacked > 0 {
		catalog = append(catalog, ep("block-storage", "/volume/v3/"+d.projectID(p)), ep("volumev3", "/volume/v3/"+d.projectID(p)))
	}
	dom := map[string]any{"id": "default", "name": "Default"}
	body := map[string]any{"token": map[string]any{
		"methods": []string{"password"}, "expires_at": "2099-01-01T00:00:00.000000Z", "issued_at": "2026-01-01T00:00:00.000000Z",
		"user":    map[string]any{"id": d.kid(kUser, d.adminUser()), "name": "admin", "domain": dom, "password_expires_at": nil},
		"project": map[string]any{"id": d.projectID(p), "name": d.projectName(p), "domain": dom},
		"roles":   []map[string]any{{"id": d.kid(kRole, 0), "name": "admin"}, {"id": d.kid(kRole, 1), "name": "member"}, {"id": d.kid(kRole, 2), "name": "reader"}},
		"catalog": catalog,
	}}
	w.Header().Set("X-Subject-Token", r.c.issueToken(p))
	writeJSON(w, 201, body)
}

func (d *data) projectObj(base string, p int) map[string]any {
	id := d.projectID(p)
	return map[string]any{"id": id, "name": d.projectName(p), "domain_id": "default", "enabled": true, "is_domain": false,
		"parent_id": "default", "description": "", "tags": []string{}, "options": map[string]any{}, "links": map[string]string{"self": base + "/v3/projects/" + id}}
}

func collectionLinks(self string) map[string]any {
	return map[string]any{"self": self, "next": nil, "previous": nil}
}

// hProjects: Keystone does not page; filters by name; a list longer than
// ProjectListLimit is truncated, as Keystone's list_limit does.
func hProjects(w http.ResponseWriter, r *request) {
	d, q := r.c.d, r.URL.Query()
	out := []any{}
	for p := 0; p < r.c.NumProjects(); p++ {
		if n := q.Get("name"); n != "" && n != d.projectName(p) {
			continue
		}
		out = append(out, d.projectObj(r.c.URL, p))
	}
	body := map[string]any{"projects": out, "links": collectionLinks(r.c.URL + r.URL.RequestURI())}
	if l := r.c.cfg.ProjectListLimit; l > 0 && len(out) > l {
		body["projects"], body["truncated"] = out[:l], true // Keystone's list_limit: no next page
	}
	writeJSON(w, 200, body)
}

func hProject(w http.ResponseWriter, r *request) {
	p, ok := r.c.d.projectIndex(r.args[0])
	if !ok {
		notFound(w, "project")
		return
	}
	writeJSON(w, 200, map[string]any{"project": r.c.d.projectObj(r.c.URL, p)})
}

func notFound(w http.ResponseWriter, what string) {
	writeJSON(w, 404, map[string]any{"error": map[string]any{"code": 404, "message": "Could not find " + what + ".", "title": "Not Found"}})
}

func (d *data) userObj(base string, u int) map[string]any {
	id := d.kid(kUser, u)
	o := map[string]any{"id": id, "name": d.userName(u), "domain_id": "default", "enabled": u%53 != 52, "options": map[string]any{},
		"password_expires_at": nil, "links": map[string]string{"self": base + "/v3/users/" + id}}
	if p := d.userProject(u); p >= 0 {
		o["default_project_id"] = d.projectID(p)
	}
	return o
}

func hUsers(w http.ResponseWriter, r *request) {
	d, q := r.c.d, r.URL.Query()
	out := []any{}
	for u := 0; u < d.numUsers(); u++ {
		if n := q.Get("name"); n != "" && n != d.userName(u) {
			continue
		}
		out = append(out, d.userObj(r.c.URL, u))
	}
	writeJSON(w, 200, map[string]any{"users": out, "links": collectionLinks(r.c.URL + r.URL.RequestURI())})
}

func hUser(w http.ResponseWriter, r *request) {
	d := r.c.d
	u, ok := d.parseKID(r.args[0], kUser)
	if !ok || u >= d.numUsers() {
		notFound(w, "user")
		return
	}
	writeJSON(w, 200, map[string]any{"user": d.userObj(r.c.URL, u)})
}

var roleNames = []string{"admin", "member", "reader"}

func hRoles(w http.ResponseWriter, r *request) {
	out := []any{}
	for i, n := range roleNames {
		if q := r.URL.Query().Get("name"); q != "" && q != n {
			continue
		}
		id := r.c.d.kid(kRole, i)
		out = append(out, map[string]any{"id": id, "name": n, "domain_id": nil, "links": map[string]string{"self": r.c.URL + "/v3/roles/" + id}})
	}
	writeJSON(w, 200, map[string]any{"roles": out, "links": collectionLinks(r.c.URL + r.URL.RequestURI())})
}

// hRoleAssignments: each tenant user is a member of its project; admin
// is admin on every project, nova admin on service. No groups, so
// effective lists the same. Filters: scope.project.id, user.id, role.id.
func hRoleAssignments(w http.ResponseWriter, r *request) {
	d, q := r.c.d, r.URL.Query()
	names := q.Has("include_names") && q.Get("include_names") != "false" && q.Get("include_names") != "0"
	out := []any{}
	add := func(u, p, role int) {
		uid, pid, rid := d.kid(kUser, u), d.projectID(p), d.kid(kRole, role)
		if f := q.Get("scope.project.id"); f != "" && f != pid {
			return
		}
		if f := q.Get("user.id"); f != "" && f != uid {
			return
		}
		if f := q.Get("role.id"); f != "" && f != rid {
			return
		}
		user, proj, ro := map[string]any{"id": uid}, map[string]any{"id": pid}, map[string]any{"id": rid}
		if names {
			dom := map[string]any{"id": "default", "name": "Default"}
			user["name"], user["domain"] = d.userName(u), dom
			proj["name"], proj["domain"] = d.projectName(p), dom
			ro["name"] = roleNames[role]
		}
		out = append(out, map[string]any{"user": user, "role": ro, "scope": map[string]any{"project": proj},
			"links": map[string]string{"assignment": r.c.URL + "/v3/projects/" + pid + "/users/" + uid + "/roles/" + rid}})
	}
	for p := 0; p < r.c.NumProjects(); p++ {
		add(d.adminUser(), p, 0)
		if p == pService {
			add(d.novaUser(), p, 0)
		}
		if p >= pTenant0 {
			for k := 0; k < d.perProject; k++ {
				add((p-pTenant0)*d.perProject+k, p, 1)
			}
		}
	}
	writeJSON(w, 200, map[string]any{"role_assignments": out, "links": collectionLinks(r.c.URL + r.URL.RequestURI())})
}
