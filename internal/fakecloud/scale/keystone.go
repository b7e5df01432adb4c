package scale

import (
	"net/http"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

func link(href, rel string) []map[string]string {
	return []map[string]string{{"href": href, "rel": rel}}
}

func hIdentityVersions(w http.ResponseWriter, r *request) {
	fakecloud.Reply(w, 300, map[string]any{"versions": map[string]any{"values": []any{
		map[string]any{"id": "v3.14", "status": "stable", "updated": "2020-04-07T00:00:00Z", "links": link(r.c.URL+"/identity/v3/", "self")}}}})
}

func hIdentityVersion(w http.ResponseWriter, r *request) {
	fakecloud.Reply(w, 200, map[string]any{"version": map[string]any{"id": "v3.14", "status": "stable", "links": link(r.c.URL+"/identity/v3/", "self")}})
}

func collectionLinks(self string) map[string]any {
	return map[string]any{"self": self, "next": nil, "previous": nil}
}

func (d *data) userObj(base string, u int) map[string]any {
	id := d.kid(kUser, u)
	o := map[string]any{"id": id, "name": d.userName(u), "domain_id": "default", "enabled": u%53 != 52, "options": map[string]any{},
		"password_expires_at": nil, "links": map[string]string{"self": base + "/identity/v3/users/" + id}}
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
	fakecloud.Reply(w, 200, map[string]any{"users": out, "links": collectionLinks(r.c.URL + r.URL.RequestURI())})
}

func hUser(w http.ResponseWriter, r *request) {
	d := r.c.d
	u, ok := d.parseKID(r.PathValue("id"), kUser)
	if !ok || u >= d.numUsers() {
		fakecloud.NotFound(w, "user")
		return
	}
	fakecloud.Reply(w, 200, map[string]any{"user": d.userObj(r.c.URL, u)})
}

var roleNames = []string{"admin", "member", "reader"}

func hRoles(w http.ResponseWriter, r *request) {
	out := []any{}
	for i, n := range roleNames {
		if q := r.URL.Query().Get("name"); q != "" && q != n {
			continue
		}
		id := r.c.d.kid(kRole, i)
		out = append(out, map[string]any{"id": id, "name": n, "domain_id": nil, "links": map[string]string{"self": r.c.URL + "/identity/v3/roles/" + id}})
	}
	fakecloud.Reply(w, 200, map[string]any{"roles": out, "links": collectionLinks(r.c.URL + r.URL.RequestURI())})
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
			"links": map[string]string{"assignment": r.c.URL + "/identity/v3/projects/" + pid + "/users/" + uid + "/roles/" + rid}})
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
	fakecloud.Reply(w, 200, map[string]any{"role_assignments": out, "links": collectionLinks(r.c.URL + r.URL.RequestURI())})
}
