package barbican

import (
	"errors"
	"net/http"
	"strings"
)

// ErrPayloadRefused is what any attempt to read a secret's value gets.
var ErrPayloadRefused = errors.New("vtpmctl never reads secret payloads: request refused before it was sent")

// RefusePayload wraps the transport of every audit: a request for
// /payload (GET /v1/secrets/{id}/payload) fails here and never leaves the
// process, whatever code path asks for it.
func RefusePayload(next http.RoundTripper) http.RoundTripper {
	return payloadGuard{next}
}

type payloadGuard struct{ next http.RoundTripper }

func (g payloadGuard) RoundTrip(r *http.Request) (*http.Response, error) {
	p := strings.TrimRight(strings.ToLower(r.URL.Path), "/")
	if strings.HasSuffix(p, "/payload") || strings.Contains(p, "/payload/") {
		return nil, ErrPayloadRefused
	}
	return g.next.RoundTrip(r)
}
