package keystone

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// reply is a strict Keystone's answer to one GET (path and query).
type reply struct {
	status int // 0: 200
	body   string
}

// strictKeystone is a strict fakecloud answering exactly the GETs given
// (path below /identity and query), "{url}" in a body being its
// Keystone's URL; any other request, or a reply never asked, fails the
// test.
func strictKeystone(t *testing.T, replies map[string]reply) *gophercloud.ServiceClient {
	t.Helper()
	c := fakecloud.New(t)
	// sorted: a path without a query comes before its queries (declared
	// after them, it would swap their answers: see fakecloud's Handle)
	for _, uri := range slices.Sorted(maps.Keys(replies)) {
		rep := replies[uri]
		status := rep.status
		if status == 0 {
			status = http.StatusOK
		}
		c.Handle("GET /identity"+uri, fakecloud.JSON(status, strings.ReplaceAll(rep.body, "{url}", c.URL+"/identity")))
	}
	return c.ServiceClient("identity/v3")
}

// TestListProjects: the pages are followed by their next links, and a
// list Keystone says it truncated is said to be.
func TestListProjects(t *testing.T) {
	ks := strictKeystone(t, map[string]reply{
		"/v3/projects":        {body: `{"projects":[{"id":"p1","name":"one"}],"links":{"next":"{url}/v3/projects?page=2"}}`},
		"/v3/projects?page=2": {body: `{"projects":[{"id":"p2","name":"two"}],"links":{"next":null},"truncated":true}`},
	})
	names, truncated, err := ListProjects(context.Background(), ks)
	if err != nil || len(names) != 2 || names["p1"] != "one" || names["p2"] != "two" || !truncated {
		t.Errorf("%v, truncated %v, %v", names, truncated, err)
	}
}

// TestEffectiveMembers: one unscoped effective list, grouped by the
// projects asked for (a domain's or another project's assignment is
// none of theirs); a list Keystone truncated is ErrTruncated.
func TestEffectiveMembers(t *testing.T) {
	const list = "/v3/role_assignments?effective=true"
	ks := strictKeystone(t, map[string]reply{list: {body: `{"role_assignments":[
		{"role":{"id":"r"},"scope":{"project":{"id":"p1"}},"user":{"id":"alice"}},
		{"role":{"id":"r"},"scope":{"project":{"id":"p9"}},"user":{"id":"bob"}},
		{"role":{"id":"r"},"scope":{"domain":{"id":"default"}},"user":{"id":"carol"}}],"links":{"next":null}}`}})
	got, err := EffectiveMembers(context.Background(), ks, []string{"p1", "p2"})
	if err != nil || len(got) != 2 || !got["p1"]["alice"] || len(got["p1"]) != 1 || got["p2"] == nil || len(got["p2"]) != 0 {
		t.Errorf("%v, %v", got, err)
	}
	ks = strictKeystone(t, map[string]reply{list: {body: `{"role_assignments":[
		{"role":{"id":"r"},"scope":{"project":{"id":"p1"}},"user":{"id":"alice"}}],"links":{"next":null},"truncated":true}`}})
	if _, err := EffectiveMembers(context.Background(), ks, []string{"p1"}); !errors.Is(err, ErrTruncated) {
		t.Errorf("truncated: %v", err)
	}
}

// TestGetUser: a user, and one that does not exist (the request's 404).
func TestGetUser(t *testing.T) {
	ks := strictKeystone(t, map[string]reply{
		"/v3/users/u1":   {body: `{"user":{"id":"u1","name":"alice","enabled":true,"domain_id":"default"}}`},
		"/v3/users/gone": {status: http.StatusNotFound, body: `{"error":{"code":404}}`},
	})
	if u, err := GetUser(context.Background(), ks, "u1"); err != nil || u != (User{ID: "u1", Name: "alice", Enabled: true}) {
		t.Errorf("%+v, %v", u, err)
	}
	if _, err := GetUser(context.Background(), ks, "gone"); !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
		t.Errorf("gone: %v", err)
	}
}

// TestListUsers: the pages are followed by their next links, the name
// filter is asked as a query, and an empty page ends the list.
func TestListUsers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		filter  string
		replies map[string]reply
		want    []User
	}{
		{"two pages", "", map[string]reply{
			"/v3/users":        {body: `{"users":[{"id":"u1","name":"alice","enabled":true,"domain_id":"default","options":{}}],"links":{"next":"{url}/v3/users?page=2"}}`},
			"/v3/users?page=2": {body: `{"users":[{"id":"u2","name":"bob","enabled":false}],"links":{"next":null}}`},
		}, []User{{"u1", "alice", true}, {"u2", "bob", false}}},
		{"named", "nova", map[string]reply{
			"/v3/users?name=nova": {body: `{"users":[{"id":"n1","name":"nova","enabled":true}],"links":{"self":"{url}/v3/users?name=nova"}}`},
		}, []User{{"n1", "nova", true}}},
		{"an empty page ends it", "", map[string]reply{
			"/v3/users": {body: `{"users":[],"links":{"next":"{url}/v3/users?page=2"}}`},
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []User
			err := ListUsers(context.Background(), strictKeystone(t, tc.replies), tc.filter, func(u User) { got = append(got, u) })
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("%v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// TestProjectMembers: one project's effective list, its pages followed;
// a list Keystone truncated is ErrTruncated, not a set missing users.
func TestProjectMembers(t *testing.T) {
	const list = "/v3/role_assignments?effective=true&scope.project.id=p1"
	ks := strictKeystone(t, map[string]reply{
		list:             {body: `{"role_assignments":[{"role":{"id":"r"},"scope":{"project":{"id":"p1"}},"user":{"id":"alice"}}],"links":{"next":"{url}` + list + `&page=2"}}`},
		list + "&page=2": {body: `{"role_assignments":[{"role":{"id":"r"},"scope":{"project":{"id":"p1"}},"user":{"id":"bob"}}],"links":{"next":null}}`},
	})
	got, err := ProjectMembers(context.Background(), ks, "p1")
	if err != nil || len(got) != 2 || !got["alice"] || !got["bob"] {
		t.Errorf("%v, %v", got, err)
	}
	ks = strictKeystone(t, map[string]reply{list: {body: `{"role_assignments":[
		{"role":{"id":"r"},"scope":{"project":{"id":"p1"}},"user":{"id":"alice"}}],"links":{"next":null},"truncated":true}`}})
	if got, err := ProjectMembers(context.Background(), ks, "p1"); !errors.Is(err, ErrTruncated) || got != nil {
		t.Errorf("truncated: %v, %v; want no set and ErrTruncated", got, err)
	}
}
