package cloud

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// Every error body shape the services send gives the server's own
// message, without the status it repeats (the line says the status).
func TestServerMessage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"nova", 403, `{"forbidden": {"code": 403, "message": "Policy doesn't allow os_compute_api:servers:detail:get_all_tenants to be performed."}}`,
			"Policy doesn't allow os_compute_api:servers:detail:get_all_tenants to be performed."},
		{"cinder", 404, `{"itemNotFound": {"message": "Volume 42 could not be found.", "code": 404}}`, "Volume 42 could not be found."},
		{"keystone", 401, `{"error": {"code": 401, "message": "The request you have made requires authentication.", "title": "Unauthorized"}}`,
			"The request you have made requires authentication."},
		{"barbican", 403, `{"code": 403, "title": "Forbidden", "description": "SecretACLs(s) retrieval attempt not allowed - please review your user/project privileges"}`,
			"SecretACLs(s) retrieval attempt not allowed - please review your user/project privileges"},
		{"barbican title only", 404, `{"code": 404, "title": "Not Found", "description": ""}`, ""},
		{"placement", 404, `{"errors": [{"status": 404, "title": "Not Found", "detail": "The resource could not be found.\n\n No resource provider with uuid 9 found  ", "request_id": "req-1"}]}`,
			"The resource could not be found. No resource provider with uuid 9 found"},
		{"glance html", 403, "<html>\n <head>\n  <title>403 Forbidden</title>\n </head>\n <body>\n  <h1>403 Forbidden</h1>\n  You are not authorized to complete publicize_image action.<br /><br />\n\n\n\n </body>\n</html>",
			"You are not authorized to complete publicize_image action."},
		{"glance plain", 409, "409 Conflict\n\nImage status transition from active to active is not allowed", "Image status transition from active to active is not allowed"},
		{"html entity", 400, "<html><body><h1>400 Bad Request</h1>Property &#39;os_type&#39; is invalid</body></html>", "Property 'os_type' is invalid"},
		{"neutron", 404, `{"NeutronError": {"type": "NetworkNotFound", "message": "Network 7 could not be found.", "detail": ""}}`, "Network 7 could not be found."},
		{"unknown json", 500, `{"error": "token is not welcome here"}`, `{"error": "token is not welcome here"}`},
		{"empty", 502, "", ""},
		{"status only", 503, "503 Service Unavailable", ""},
	} {
		if got := ServerMessage([]byte(tc.body), tc.status); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// A long or multi-line body is cut to one bounded line.
func TestServerMessageBounded(t *testing.T) {
	body := `{"computeFault": {"message": "Traceback (most recent call last):\n` + strings.Repeat(`  File x, line 1\n`, 100) + `"}}`
	got := ServerMessage([]byte(body), 500)
	if strings.Contains(got, "\n") || utf8.RuneCountInString(got) > maxServerMessage+1 || !strings.HasSuffix(got, "…") || !strings.HasPrefix(got, "Traceback") {
		t.Errorf("%d runes: %q", utf8.RuneCountInString(got), got)
	}
}

// The line names the service and the path below its endpoint, as the
// session registered them; an origin no session knows keeps its path.
func TestAPIErrorLine(t *testing.T) {
	registerEndpoint("https://cloud.test:8774/v2.1/", "compute")
	registerEndpoint("https://cloud.test/volume/v3/p1/", "block-storage")
	for _, tc := range []struct {
		e    gophercloud.ErrUnexpectedResponseCode
		want string
	}{
		{gophercloud.ErrUnexpectedResponseCode{Method: "GET", URL: "https://cloud.test:8774/v2.1/servers/detail?all_tenants=1&name=x", Actual: 403,
			Body: []byte(`{"forbidden": {"message": "Policy doesn't allow os_compute_api:servers:detail:get_all_tenants to be performed.", "code": 403}}`)},
			"GET compute /servers/detail: 403 Forbidden: Policy doesn't allow os_compute_api:servers:detail:get_all_tenants to be performed."},
		{gophercloud.ErrUnexpectedResponseCode{Method: "GET", URL: "https://cloud.test:8774/v2.1/", Actual: 503, Body: []byte(`{"error": "maintenance"}`)},
			`GET compute /v2.1/: 503 Service Unavailable: {"error": "maintenance"}`},
		{gophercloud.ErrUnexpectedResponseCode{Method: "DELETE", URL: "https://cloud.test/volume/v3/p1/volumes/v9", Actual: 404},
			"DELETE block-storage /volumes/v9: 404 Not Found"},
		{gophercloud.ErrUnexpectedResponseCode{Method: "POST", URL: "https://elsewhere.test/v3/auth/tokens", Actual: 599},
			"POST /v3/auth/tokens: 599"},
	} {
		if got := APIErrorLine(tc.e); got != tc.want {
			t.Errorf("\n got %q\nwant %q", got, tc.want)
		}
	}
}

// A session's requests carry vtpmctl's version before gophercloud's,
// as the server receives them: the token request, a service call, a
// re-scoped session's token request and call.
func TestUserAgent(t *testing.T) {
	var mu sync.Mutex
	var got []string
	record := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			got = append(got, r.Method+" "+r.URL.Path+": "+r.Header.Get("User-Agent"))
			mu.Unlock()
			h(w, r)
		}
	}
	srv := fakecloud.New(t)
	srv.Handle("POST /identity/v3/auth/tokens [none]", record(func(w http.ResponseWriter, r *http.Request) {
		srv.AddToken("gAAAAua-token-Qw8", "p1")
		w.Header().Set("X-Subject-Token", "gAAAAua-token-Qw8")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		fmt.Fprintf(w, `{"token":{"expires_at":"2099-01-01T00:00:00Z","project":{"id":"p1","name":"p"},"catalog":[{"type":"compute","endpoints":[{"interface":"public","region":"RegionOne","url":"%s/compute"}]}]}}`, srv.URL)
	}))
	srv.Handle("GET /compute/thing [none]", record(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
	t.Setenv("OS_CLIENT_CONFIG_FILE", "/nonexistent")
	t.Setenv("OS_CLOUD", "")
	for k, v := range map[string]string{"OS_AUTH_URL": srv.URL + "/identity/v3", "OS_USERNAME": "u", "OS_PASSWORD": "pw-Ua81", "OS_PROJECT_ID": "p1", "OS_USER_DOMAIN_NAME": "Default"} {
		t.Setenv(k, v)
	}
	s, err := Connect(context.Background(), Options{Timeout: 10 * time.Second, Version: "1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	p2, err := s.ForProject(context.Background(), "p2")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Session{s, p2} {
		sc := &gophercloud.ServiceClient{ProviderClient: s.Provider, Endpoint: srv.URL + "/compute/"}
		if _, err := sc.Get(context.Background(), sc.ServiceURL("thing"), nil, &gophercloud.RequestOpts{OkCodes: []int{204}}); err != nil {
			t.Fatal(err)
		}
	}
	want := "vtpmctl/1.2.3 " + gophercloud.DefaultUserAgent
	if len(got) != 4 {
		t.Fatalf("requests: %q", got)
	}
	for _, line := range got {
		if !strings.HasSuffix(line, ": "+want) {
			t.Errorf("%s, want User-Agent %s", line, want)
		}
	}
}
