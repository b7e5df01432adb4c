package cloud

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
	"github.com/vtpmctl/vtpmctl/internal/paging"
)

func testClient() *http.Client {
	c := httpClient(&tls.Config{}, Options{Timeout: 10 * time.Second}, nil)
	return &c
}

func computeClient(url string) *gophercloud.ServiceClient {
	pc := &gophercloud.ProviderClient{HTTPClient: *testClient()}
	pc.SetToken("tok-secret-value")
	return &gophercloud.ServiceClient{ProviderClient: pc, Endpoint: url + "/", ResourceBase: url + "/"}
}

// TestPayloadRefused: every spelling of a payload path is refused before
// it leaves; metadata paths pass.
func TestPayloadRefused(t *testing.T) {
	srv := fakecloud.New(t) // strict: a layer that rewrote, dropped or invented a request misses
	ok := func(w http.ResponseWriter, r *http.Request) {}
	for _, route := range []string{"GET /v1/secrets/abc", "GET /v1/secrets?name=vTPM+secret+for+instance%25", "GET /v1/secrets/abc/acl", "GET /v1/payloads-of-nothing"} {
		srv.Handle(route+" [none]", ok)
	}
	hits := func() int { return srv.Stats().Requests }
	c := testClient()
	for _, p := range []string{"/v1/secrets/abc/payload", "/v1/secrets/abc/payload/", "/key-manager/v1/secrets/abc/PAYLOAD",
		"/v1/secrets/abc/payload/x", "/v1/secrets/abc/payload.json", "/v1/secrets/abc/Payload.JSON", "/v1/secrets/abc/payload;a=b", "/v1/secrets/abc/payload?x=1"} {
		_, err := c.Get(srv.URL + p)
		if !errors.Is(err, ErrPayloadRefused) {
			t.Errorf("%s: %v", p, err)
		}
	}
	if hits() != 0 {
		t.Fatalf("%d payload request(s) reached the server", hits())
	}
	for _, p := range []string{"/v1/secrets/abc", "/v1/secrets?name=vTPM%20secret%20for%20instance%25", "/v1/secrets/abc/acl", "/v1/payloads-of-nothing"} {
		if resp, err := c.Get(srv.URL + p); err != nil {
			t.Errorf("%s refused: %v", p, err)
		} else {
			resp.Body.Close()
		}
	}
	if hits() != 4 {
		t.Errorf("metadata requests: %d hits, want 4", hits())
	}
}

func listServers(c *gophercloud.ServiceClient) (int, error) {
	n := 0
	err := servers.List(c, servers.ListOpts{Limit: 1}).EachPage(paging.Guard(context.Background(), "server list"), func(_ context.Context, p pagination.Page) (bool, error) {
		l, err := servers.ExtractServers(p)
		n += len(l)
		return true, err
	})
	return n, err
}

// TestPagingStops: a next link back to the same page, to another host, or
// pages without end stop with an error naming the list.
func TestPagingStops(t *testing.T) {
	other := fakecloud.New(t) // no stub: any request, token or not, fails the test
	var page int32
	mode := ""
	pageOf := func(w http.ResponseWriter, r *http.Request) {
		n := atomic.AddInt32(&page, 1)
		next := ""
		switch mode {
		case "same":
			next = "http://" + r.Host + "/servers/detail?limit=1&marker=a"
		case "foreign":
			next = other.URL + "/servers/detail?marker=b"
		case "endless":
			next = fmt.Sprintf("http://%s/servers/detail?limit=1&marker=%d", r.Host, n)
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"servers":[{"id":"s%d","name":"x"}],"servers_links":[{"rel":"next","href":%q}]}`, n, next)
	}
	// the first page as listServers asks it, then the next links as given
	srv := fakecloud.New(t)
	srv.Handle("GET /servers/detail?limit=1 [none]", pageOf)
	srv.Handle("GET /servers/detail?limit=1&marker=* [none]", pageOf)
	c := computeClient(srv.URL)
	old := paging.MaxPages
	paging.MaxPages = 50
	defer func() { paging.MaxPages = old }()
	for _, tc := range []struct{ mode, want string }{
		{"same", "already sent"}, {"foreign", "not followed"}, {"endless", "more than 50 pages"},
	} {
		mode = tc.mode
		atomic.StoreInt32(&page, 0)
		_, err := listServers(c)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "server list") {
			t.Errorf("%s: %v", tc.mode, err)
		}
		if p := atomic.LoadInt32(&page); p > 51 {
			t.Errorf("%s: %d pages fetched", tc.mode, p)
		}
	}
	if foreign := other.Stats().Requests; foreign != 0 {
		t.Errorf("the foreign host got %d request(s)", foreign)
	}
}

// TestRetry: idempotent reads are retried on 429/502/503/504, bounded;
// writes never are.
func TestRetry(t *testing.T) {
	oldBase := RetryBase
	RetryBase = time.Millisecond
	defer func() { RetryBase = oldBase }()
	var calls int32
	fails := int32(0)
	answer := func(w http.ResponseWriter, r *http.Request) {
		n := atomic.AddInt32(&calls, 1)
		if n <= atomic.LoadInt32(&fails) {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader([]int{502, 429, 503, 504}[n%4])
			return
		}
		io.WriteString(w, "ok")
	}
	srv := fakecloud.New(t)
	srv.Handle("GET / [none]", answer)
	srv.Handle("POST / [none]", answer)
	c := testClient()
	for _, tc := range []struct {
		method       string
		fails        int32
		status       int
		wantAttempts int32
	}{
		{"GET", 2, 200, 3}, {"GET", 5, 0, 3}, {"POST", 1, 0, 1}, {"GET", 0, 200, 1},
	} {
		atomic.StoreInt32(&calls, 0)
		atomic.StoreInt32(&fails, tc.fails)
		req, _ := http.NewRequest(tc.method, srv.URL, nil)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if tc.status != 0 && resp.StatusCode != tc.status {
			t.Errorf("%s with %d failures: status %d", tc.method, tc.fails, resp.StatusCode)
		}
		if n := atomic.LoadInt32(&calls); n != tc.wantAttempts {
			t.Errorf("%s with %d failures: %d attempts, want %d", tc.method, tc.fails, n, tc.wantAttempts)
		}
	}
	if d := retryAfter("7"); d != 7*time.Second {
		t.Errorf("Retry-After 7: %s", d)
	}
	if d := retryAfter(time.Now().Add(3 * time.Second).UTC().Format(http.TimeFormat)); d < time.Second || d > 4*time.Second {
		t.Errorf("Retry-After date: %s", d)
	}
}

// TestRetryCutAnswers: a GET whose connection is cut (before the answer,
// or halfway through a body that announced its length: closed or reset)
// is asked again and its whole body returned; before, the half body
// reached the JSON decoder and the list failed. A POST is never retried.
func TestRetryCutAnswers(t *testing.T) {
	oldBase := RetryBase
	RetryBase = time.Millisecond
	defer func() { RetryBase = oldBase }()
	const body = `{"servers":[{"id":"a"},{"id":"b"}]}`
	for _, cut := range []string{"before", "half-closed", "half-reset"} {
		t.Run(cut, func(t *testing.T) {
			var calls int32
			srv := fakecloud.New(t)
			cutOnce := func(w http.ResponseWriter, r *http.Request) {
				if atomic.AddInt32(&calls, 1) > 1 {
					io.WriteString(w, body)
					return
				}
				conn, buf, _ := http.NewResponseController(w).Hijack()
				if cut != "before" {
					fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(body), body[:len(body)/2])
					buf.Flush()
				}
				if tc, ok := conn.(*net.TCPConn); ok && cut == "half-reset" {
					tc.SetLinger(0)
				}
				conn.Close()
			}
			srv.Handle("GET / [none]", cutOnce)
			srv.Handle("POST / [none]", cutOnce)
			resp, err := testClient().Get(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			if string(b) != body || atomic.LoadInt32(&calls) != 2 {
				t.Errorf("%d calls, body %q", atomic.LoadInt32(&calls), b)
			}
			atomic.StoreInt32(&calls, 0)
			if resp, err := testClient().Post(srv.URL, "application/json", strings.NewReader("{}")); err == nil {
				b, _ := io.ReadAll(resp.Body)
				if string(b) == body {
					t.Errorf("POST answered whole: it was sent again")
				}
			}
			if n := atomic.LoadInt32(&calls); n != 1 {
				t.Errorf("POST sent %d times", n)
			}
		})
	}
}

// TestResponseSizeCap: a body past the cap is an error, not memory.
func TestResponseSizeCap(t *testing.T) {
	old := MaxResponseBytes
	MaxResponseBytes = 1 << 20
	defer func() { MaxResponseBytes = old }()
	big := func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/chunked" {
			w.(http.Flusher).Flush() // no Content-Length
		}
		w.Write([]byte(strings.Repeat("x", 3<<20)))
	}
	srv := fakecloud.New(t)
	srv.Handle("GET /sized [none]", big)
	srv.Handle("GET /chunked [none]", big)
	c := testClient()
	for _, p := range []string{"/sized", "/chunked"} {
		resp, err := c.Get(srv.URL + p)
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		var big *ResponseTooLargeError
		if !errors.As(err, &big) {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestRedirectOffHost: a redirect to another host is not followed, so the
// token stays home.
func TestRedirectOffHost(t *testing.T) {
	other := fakecloud.New(t) // no stub: a request reaching it fails the test
	srv := fakecloud.New(t)
	srv.Handle("GET / [none]", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/steal", http.StatusFound)
	})
	req, _ := http.NewRequest("GET", srv.URL, nil)
	req.Header.Set("X-Auth-Token", "tok")
	_, err := testClient().Do(req)
	if hit := other.Stats().Requests; err == nil || !strings.Contains(err.Error(), "not followed") || hit != 0 {
		t.Errorf("err %v, foreign hits %d", err, hit)
	}
}

// TestScrub: registered credentials and URL user-info never reach a line.
func TestScrub(t *testing.T) {
	RegisterSecret("hunter2-pass")
	RegisterSecret("ab") // too short to register
	for in, leak := range map[string]string{
		`POST http://k/v3/auth/tokens: HTTP 401: {"error":"bad password hunter2-pass"}`: "hunter2-pass",
		`authenticating to http://admin:s3cr3t@127.0.0.1:5000/v3: refused`:              "s3cr3t",
		`https://u@host/x`: "u@",
	} {
		if out := Scrub(in); strings.Contains(out, leak) {
			t.Errorf("%q leaked in %q", leak, out)
		}
	}
	if out := Scrub("about a tab"); out != "about a tab" {
		t.Errorf("short value scrubbed: %q", out)
	}
}

// TestEveryTokenScrubbed: the token gophercloud gets by re-authenticating
// after a 401, and a per-project token, are scrubbed from error text and
// --debug when a server echoes them (Connect only sees the first token).
func TestEveryTokenScrubbed(t *testing.T) {
	var issued atomic.Int32
	srv := fakecloud.New(t)
	srv.Handle("POST /identity/v3/auth/tokens [none]", func(w http.ResponseWriter, r *http.Request) {
		tok := fmt.Sprintf("gAAAAissued-token-%d-Qw8", issued.Add(1))
		srv.AddToken(tok, "p1")
		w.Header().Set("X-Subject-Token", tok)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		fmt.Fprintf(w, `{"token":{"expires_at":"2099-01-01T00:00:00Z","project":{"id":"p1","name":"p"},"catalog":[{"type":"compute","endpoints":[{"interface":"public","region":"RegionOne","url":"%s/compute"}]}]}}`, srv.URL)
	})
	srv.Handle("GET /compute/thing [none]", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Auth-Token") == "gAAAAissued-token-1-Qw8" {
			w.WriteHeader(401) // the first token "expired": gophercloud re-authenticates
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(500)
		fmt.Fprintf(w, `{"error":"token %s is not welcome here"}`, r.Header.Get("X-Auth-Token"))
	})
	t.Setenv("OS_CLIENT_CONFIG_FILE", "/nonexistent")
	t.Setenv("OS_CLOUD", "")
	for k, v := range map[string]string{"OS_AUTH_URL": srv.URL + "/identity/v3", "OS_USERNAME": "u", "OS_PASSWORD": "pw-Zr81", "OS_PROJECT_ID": "p1", "OS_USER_DOMAIN_NAME": "Default"} {
		t.Setenv(k, v)
	}
	var debug bytes.Buffer
	s, err := Connect(context.Background(), Options{Timeout: 10 * time.Second, Debug: &debug})
	if err != nil {
		t.Fatal(err)
	}
	// HasPolicy on what Connect built, and on clients that lack the layer
	if !HasPolicy(&s.Provider.HTTPClient) {
		t.Error("Connect's client lacks the policy layer")
	}
	for _, c := range []*http.Client{{}, {Transport: http.DefaultTransport}, {Transport: retryTransport{next: policyTransport{http.DefaultTransport}}}} {
		if HasPolicy(c) {
			t.Errorf("HasPolicy(%T) is true", c.Transport)
		}
	}
	get := func(s *Session) string {
		sc := &gophercloud.ServiceClient{ProviderClient: s.Provider, Endpoint: srv.URL + "/compute/"}
		_, err := sc.Get(context.Background(), sc.ServiceURL("thing"), nil, nil)
		if err == nil {
			t.Fatal("the echoing server's 500 was not an error")
		}
		return Scrub(Friendly(err).Error())
	}
	lines := []string{get(s)}
	p2, err := s.ForProject(context.Background(), "p2")
	if err != nil {
		t.Fatal(err)
	}
	lines = append(lines, get(p2))
	if issued.Load() != 3 {
		t.Fatalf("%d tokens issued, want 3 (login, re-auth, project)", issued.Load())
	}
	for _, out := range append(lines, debug.String()) {
		for i := 1; i <= 3; i++ {
			if tok := fmt.Sprintf("gAAAAissued-token-%d-Qw8", i); strings.Contains(out, tok) {
				t.Errorf("token %d leaked:\n%s", i, out)
			}
		}
	}
	for _, l := range lines {
		if !strings.Contains(l, "500 Internal Server Error") || !strings.Contains(l, "token <redacted> is not welcome") {
			t.Errorf("error line: %s", l)
		}
	}
}

// TestConnectionsReused: 64 workers × 20 sequential requests (the most
// --concurrency allows) reuse their connections: at most 2 per worker are
// opened, not one per request beyond Go's 2 idle per host.
func TestConnectionsReused(t *testing.T) {
	srv := fakecloud.New(t)
	srv.Handle("GET / [none]", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(time.Millisecond) // keep the workers overlapping
		io.WriteString(w, `{"ok":true}`)
	})
	c := testClient()
	var wg sync.WaitGroup
	var failed atomic.Int32
	for w := 0; w < 64; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				resp, err := c.Get(srv.URL)
				if err != nil {
					failed.Add(1)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	if failed.Load() > 0 {
		t.Fatalf("%d requests failed", failed.Load())
	}
	if n := srv.Stats().Connections; n > 2*64 {
		t.Errorf("%d TCP connections for 64 workers, want ≤ 128", n)
	}
}
