package barbican

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// TestRefusePayload: no path to a secret's value reaches the network.
func TestRefusePayload(t *testing.T) {
	var hits int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { atomic.AddInt32(&hits, 1) }))
	defer srv.Close()
	c := http.Client{Transport: RefusePayload(http.DefaultTransport)}
	for _, p := range []string{"/v1/secrets/abc/payload", "/v1/secrets/abc/payload/", "/key-manager/v1/secrets/abc/PAYLOAD", "/v1/secrets/abc/payload/x"} {
		_, err := c.Get(srv.URL + p)
		if !errors.Is(err, ErrPayloadRefused) {
			t.Errorf("%s: %v", p, err)
		}
	}
	if hits != 0 {
		t.Fatalf("%d payload request(s) reached the server", hits)
	}
	for _, p := range []string{"/v1/secrets/abc", "/v1/secrets?name=vTPM%20secret%20for%20instance%25", "/v1/secrets/abc/acl"} {
		if resp, err := c.Get(srv.URL + p); err != nil {
			t.Errorf("%s refused: %v", p, err)
		} else {
			resp.Body.Close()
		}
	}
	if hits != 3 {
		t.Errorf("metadata requests: %d hits, want 3", hits)
	}
}
