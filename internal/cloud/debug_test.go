package cloud

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

func TestRedactJSON(t *testing.T) {
	in := `{"auth":{"identity":{"methods":["password"],"password":{"user":{"name":"u","password":"hunter2"}}},"application_credential":{"id":"x","secret":"s3"}},"token":{"id":"tok-value-123"},"tokens":["x"],"access_token":"at-value-9","payload":"p","extra_specs":{"hw:tpm_version":"2.0"}}`
	out := RedactJSON([]byte(in))
	for _, leak := range []string{"hunter2", "s3", "tok-value-123", "at-value-9", `"p"`} {
		if strings.Contains(out, leak) {
			t.Errorf("%s leaked: %s", leak, out)
		}
	}
	if !strings.Contains(out, `"hw:tpm_version":"2.0"`) {
		t.Errorf("ordinary data lost: %s", out)
	}
	if got := RedactJSON([]byte("password=hunter2")); strings.Contains(got, "hunter2") {
		t.Errorf("non-JSON body logged: %s", got)
	}
}

func TestDebugTransportRedactsHeaders(t *testing.T) {
	srv := fakecloud.New(t) // strict: a layer that rewrote, dropped or invented a request misses
	srv.Handle("POST /v3/auth/tokens [none]", func(w http.ResponseWriter, r *http.Request) {
		// the log is redacted, never what is sent
		if b, _ := io.ReadAll(r.Body); string(b) != `{"password":"hunter2"}` || r.Header.Get("X-Auth-Token") != "gAAAAcaller-token" {
			t.Errorf("the server got body %s, token %q", b, r.Header.Get("X-Auth-Token"))
		}
		w.Header().Set("X-Subject-Token", "gAAAAsecret-token")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"token":{"catalog":[]},"secret":"x-value"}`)
	})
	var log bytes.Buffer
	c := http.Client{Transport: &debugTransport{next: http.DefaultTransport, w: &log}}
	req, _ := http.NewRequest("POST", srv.URL+"/v3/auth/tokens", strings.NewReader(`{"password":"hunter2"}`))
	req.Header.Set("X-Auth-Token", "gAAAAcaller-token")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), "x-value") {
		t.Fatalf("response body must reach the caller intact: %s", body)
	}
	got := log.String()
	for _, leak := range []string{"hunter2", "gAAAAsecret-token", "gAAAAcaller-token", "x-value"} {
		if strings.Contains(got, leak) {
			t.Errorf("%s leaked into debug log:\n%s", leak, got)
		}
	}
	if !strings.Contains(got, "REQ: POST ") || !strings.Contains(got, "RESP: 200 OK") {
		t.Errorf("log lacks request/response lines:\n%s", got)
	}
}

// TestRedactSubtrees: lists and objects under sensitive keys, any case,
// and the credential spellings a body may use.
func TestRedactSubtrees(t *testing.T) {
	in := `{"password":["l1"],"Payload":{"v":"l2"},"token":{"value":"l3"},"auth_token":"l4","X-Auth-Token":"l5","passwd":"l6",
"client_secret":"l7","application_credential_secret":"l8","credentials":[{"blob":"l9"}],"PASSWORD":"l10","nested":[{"Admin_Password":"l11"}],
"name":"kept-name"}`
	out := RedactJSON([]byte(in))
	for i := 1; i <= 11; i++ {
		if strings.Contains(out, fmt.Sprintf(`"l%d"`, i)) {
			t.Errorf("l%d leaked: %s", i, out)
		}
	}
	if !strings.Contains(out, "kept-name") {
		t.Errorf("ordinary data lost: %s", out)
	}
}

// countingTransport counts the body bytes that come off the network.
type countingTransport struct {
	next http.RoundTripper
	n    *atomic.Int64
}

func (c countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if err == nil {
		resp.Body = countingBody{resp.Body, c.n}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// TestDebugKeepsSizeCap: with --debug, a 200 MB JSON answer (streamed, or
// announced by Content-Length) is refused after at most the cap is read,
// not read whole into memory first.
func TestDebugKeepsSizeCap(t *testing.T) {
	huge := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/sized" {
			w.Header().Set("Content-Length", strconv.Itoa(200<<20))
		}
		chunk := []byte(strings.Repeat(`{"id":"x"},`, 6000))
		io.WriteString(w, `{"servers":[`)
		for sent := 0; sent < 200<<20; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return // the client hung up: what the cap is for
			}
		}
	}
	srv := fakecloud.New(t)
	srv.Handle("GET /streamed [none]", huge)
	srv.Handle("GET /sized [none]", huge)
	for _, p := range []string{"/streamed", "/sized"} {
		var read atomic.Int64
		var log bytes.Buffer
		c := httpClient(&tls.Config{}, Options{Timeout: time.Minute, Debug: &log,
			WrapTransport: func(rt http.RoundTripper) http.RoundTripper { return countingTransport{rt, &read} }}, nil)
		resp, err := c.Get(srv.URL + p)
		if err == nil {
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		var big *ResponseTooLargeError
		if !errors.As(err, &big) {
			t.Errorf("%s: %v, want a ResponseTooLargeError", p, err)
		}
		if n := read.Load(); n > MaxResponseBytes+64<<10 {
			t.Errorf("%s: %d MiB read from the network, cap %d MiB", p, n>>20, MaxResponseBytes>>20)
		}
		if !strings.Contains(log.String(), "RESP: 200 OK") {
			t.Errorf("%s: no debug line:\n%s", p, log.String())
		}
	}
}

// TestDebugKeepsReadError: a body cut short under --debug is still an
// error for the caller, not a silently truncated document.
func TestDebugKeepsReadError(t *testing.T) {
	srv := fakecloud.New(t)
	srv.Handle("GET / [none]", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "1000")
		io.WriteString(w, `{"servers":[`) // then hang up
	})
	c := httpClient(&tls.Config{}, Options{Timeout: 10 * time.Second, Debug: io.Discard}, nil)
	resp, err := c.Get(srv.URL)
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err == nil {
		t.Error("a truncated body read without error")
	}
}
