package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// A refused API request reaches the user as one line: method, service,
// path below the endpoint, status and the server's own message; the
// command's context stays, gophercloud's "Expected HTTP response code"
// never shows, and a body's escape sequences do not reach the terminal.
func TestAPIErrorIsOneLine(t *testing.T) {
	for _, tc := range []struct {
		name, route, body string
		status            int
		args              []string
		want              string
		code              int
	}{
		{"nova policy", fakecloud.Servers, `{"forbidden": {"code": 403, "message": "Policy doesn't allow os_compute_api:servers:detail:get_all_tenants to be performed."}}`, 403,
			[]string{"secrets", "audit"},
			"GET compute /servers/detail: 403 Forbidden: Policy doesn't allow os_compute_api:servers:detail:get_all_tenants to be performed.", exitFailed},
		{"glance html with an escape", fakecloud.ImagesByName, "<html><head><title>403 Forbidden</title></head><body><h1>403 Forbidden</h1>You are not \x1b[31mallowed\x1b[0m.<br /></body></html>", 403,
			[]string{"image", "show", fakecloud.FixtureImage},
			"GET image /v2/images: 403 Forbidden: You are not ", exitFailed},
	} {
		c := fakecloud.New(t).Standard()
		c.Handle(tc.route, fakecloud.JSON(tc.status, tc.body))
		_, errs, code := runCLI(t, append([]string{"--os-cloud", "fake"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errs, tc.want) || strings.Contains(errs, "Expected HTTP") || strings.Count(errs, "\n") != 1 || strings.Contains(errs, "\x1b") {
			t.Errorf("%s: exit %d, stderr %q\nwant exit %d and a line with %q", tc.name, code, errs, tc.code, tc.want)
		}
	}
}

// message swaps every gophercloud response error in the chain, joined or
// wrapped, and keeps the context around it; other errors pass as they are.
func TestMessageSaysTheRequest(t *testing.T) {
	forbidden := gophercloud.ErrUnexpectedResponseCode{Method: "GET", URL: "http://unregistered.test/v3/projects/p1", Expected: []int{200}, Actual: 403,
		Body: []byte(`{"error": {"code": 403, "message": "You are not authorized.", "title": "Forbidden"}}`)}
	gone := &gophercloud.ErrUnexpectedResponseCode{Method: "DELETE", URL: "http://unregistered.test/v1/secrets/s1", Expected: []int{204}, Actual: 404,
		Body: []byte(`{"code": 404, "title": "Not Found", "description": "Secret not found."}`)}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("project p1: %w", forbidden), "project p1: GET /v3/projects/p1: 403 Forbidden: You are not authorized."},
		{errors.Join(fmt.Errorf("a: %w", forbidden), fmt.Errorf("b: %w", gone)),
			"a: GET /v3/projects/p1: 403 Forbidden: You are not authorized.\nb: DELETE /v1/secrets/s1: 404 Not Found: Secret not found."},
		{&gophercloud.ErrUnableToReauthenticate{ErrOriginal: forbidden, ErrReauth: errors.New("no")},
			"Unable to re-authenticate: GET /v3/projects/p1: 403 Forbidden: You are not authorized.: no"},
		{errors.New("plain"), "plain"},
	} {
		if got := message(tc.err); got != tc.want {
			t.Errorf("\n got %q\nwant %q", got, tc.want)
		}
	}
}
