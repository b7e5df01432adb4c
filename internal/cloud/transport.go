package cloud

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/vtpmctl/vtpmctl/internal/paging"
	"github.com/vtpmctl/vtpmctl/internal/parallel"
)

// ErrPayloadRefused is what any attempt to read a secret's value gets.
var ErrPayloadRefused = errors.New("vtpmctl never reads secret payloads: request refused before it was sent")

// policyTransport is the outermost layer of every session's HTTP client,
// so no command, call order or future code path can skip it: it refuses
// secret payloads, lets internal/paging stop runaway lists, and registers
// for scrubbing every token the session holds: the one it sends, and the
// one Keystone issues (first login, re-authentication after a 401, the
// per-project tokens of ForProject), before any caller can see it.
type policyTransport struct{ next http.RoundTripper }

func (t policyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if IsPayloadPath(r.URL.Path) {
		return nil, ErrPayloadRefused
	}
	RegisterSecret(r.Header.Get("X-Auth-Token"))
	if r.Method == http.MethodGet {
		if err := paging.Check(r.Context(), r.URL); err != nil {
			return nil, err
		}
	}
	resp, err := t.next.RoundTrip(r)
	if err == nil {
		RegisterSecret(resp.Header.Get("X-Subject-Token"))
		if resp.StatusCode == http.StatusUnauthorized {
			paging.Unauthorized(r.Context(), r.URL)
		}
	}
	return resp, err
}

// IsPayloadPath says whether a URL path names a secret's value: a segment
// "payload", whatever its case or suffix ("payload.json", "payload;x").
func IsPayloadPath(p string) bool {
	for _, seg := range strings.Split(strings.ToLower(p), "/") {
		if seg == "payload" || strings.HasPrefix(seg, "payload.") || strings.HasPrefix(seg, "payload;") {
			return true
		}
	}
	return false
}

// Retries of an idempotent GET answered 429, 502, 503 or 504, or cut
// short (a connection reset or closed before or during the body): a
// passing overload or a dropped connection must not turn into "not
// auditable", a failed list or a subset. A GET's body is read whole
// here, so a half-read page is asked again, never decoded.
var (
	RetryTries    = 3
	RetryBase     = 500 * time.Millisecond
	MaxRetryAfter = 30 * time.Second
)

// retryTransport also holds every try to a slot of the session's one
// pool (parallel.Slots): the bound on requests in flight is the
// session's, whichever goroutine asks, and a pushback (429, 503) slows
// the whole pool down. A try waits for its slot; a retry's pause holds
// none.
type retryTransport struct {
	next  http.RoundTripper
	slots *parallel.Slots // nil: unbounded (tests of the layers alone)
}

// pushBack: the answer asks the client to send less.
func pushBack(code int) bool {
	return code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable
}

func retryable(code int) bool {
	switch code {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

func (t retryTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		// a write is never retried, but holds a slot like any request
		ticket, err := t.acquire(r)
		if err != nil {
			return nil, err
		}
		resp, err := t.next.RoundTrip(r)
		ticket.Done(err == nil && pushBack(resp.StatusCode))
		return resp, err
	}
	for try := 1; ; try++ {
		resp, err := t.once(r)
		last := try >= RetryTries || r.Context().Err() != nil
		var tooLarge *ResponseTooLargeError
		switch {
		case err != nil && (last || errors.As(err, &tooLarge)):
			return nil, err
		case err == nil && (!retryable(resp.StatusCode) || last):
			return resp, nil
		}
		wait := RetryBase << (try - 1)
		if err == nil {
			if ra := retryAfter(resp.Header.Get("Retry-After")); ra > 0 {
				wait = ra
			}
			resp.Body.Close()
		}
		if wait > MaxRetryAfter {
			wait = MaxRetryAfter
		}
		select {
		case <-r.Context().Done():
			return nil, r.Context().Err()
		case <-time.After(wait):
		}
	}
}

// once is one try, its body read whole (under the size cap below).
func (t retryTransport) once(r *http.Request) (*http.Response, error) {
	ticket, err := t.acquire(r)
	if err != nil {
		return nil, err
	}
	resp, err := t.next.RoundTrip(r)
	if err != nil {
		ticket.Done(false)
		return nil, err
	}
	b, err := readBody(resp.Body, resp.ContentLength)
	resp.Body.Close()
	ticket.Done(pushBack(resp.StatusCode))
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading the answer: %w", r.Method, r.URL.Redacted(), err)
	}
	resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
	return resp, nil
}

// readBody reads a body whole, into one buffer of its announced length
// when there is one (a page of 1,000 servers is 2 MB: io.ReadAll would
// grow and copy its buffer a dozen times).
func readBody(r io.Reader, length int64) ([]byte, error) {
	if length <= 0 || length > MaxResponseBytes {
		return io.ReadAll(r)
	}
	buf := bytes.NewBuffer(make([]byte, 0, length+bytes.MinRead))
	_, err := buf.ReadFrom(r)
	return buf.Bytes(), err
}

func (t retryTransport) acquire(r *http.Request) (parallel.Ticket, error) {
	if t.slots == nil {
		return parallel.Ticket{}, nil
	}
	return t.slots.Acquire(r.Context())
}

// retryAfter reads delta-seconds or an HTTP date.
func retryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return time.Until(t)
	}
	return 0
}

// MaxResponseBytes caps one response body: a page of 1,000 servers is a
// few MB; a server that sends far more must not take the host's memory.
var MaxResponseBytes int64 = 32 << 20

// ResponseTooLargeError is a body past MaxResponseBytes.
type ResponseTooLargeError struct {
	URL   string
	Limit int64
}

func (e *ResponseTooLargeError) Error() string {
	return fmt.Sprintf("%s: response larger than %d MiB; refused (a smaller page size, or a server misbehaving)", e.URL, e.Limit>>20)
}

type sizeLimitTransport struct{ next http.RoundTripper }

func (t sizeLimitTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	u := r.URL.Redacted()
	if resp.ContentLength > MaxResponseBytes {
		resp.Body.Close()
		return nil, &ResponseTooLargeError{URL: u, Limit: MaxResponseBytes}
	}
	resp.Body = &limitedBody{rc: resp.Body, left: MaxResponseBytes, url: u}
	return resp, nil
}

type limitedBody struct {
	rc   io.ReadCloser
	left int64
	url  string
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// one byte more tells a body of exactly the limit from a larger one
		var one [1]byte
		if n, _ := b.rc.Read(one[:]); n > 0 {
			return 0, &ResponseTooLargeError{URL: b.url, Limit: MaxResponseBytes}
		}
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

// sameOriginRedirects refuses a redirect to another scheme, host or port:
// Go forwards X-Auth-Token on redirects, so following one would hand the
// token to whoever the server points at.
func sameOriginRedirects(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	first := via[0].URL
	if req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
		return fmt.Errorf("%s redirected to %s://%s: not followed (the token is never sent to another host)", first.Redacted(), req.URL.Scheme, req.URL.Host)
	}
	return nil
}
