package cloud

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// debugTransport logs each request and response for --debug with every
// credential removed: auth headers, the values of JSON keys that can hold
// a password, token or secret, and registered values. Each line is
// scrubbed as text, each body as JSON (RedactJSON): a password may be any
// word, "false" or "1234" too, and scrubbing a body as text would rewrite
// its literals, numbers and keys.
type debugTransport struct {
	next http.RoundTripper
	w    io.Writer
	mu   sync.Mutex
}

const maxLoggedBody = 4096

var sensitiveHeaders = map[string]bool{
	"X-Auth-Token": true, "X-Subject-Token": true, "X-Service-Token": true,
	"Authorization": true, "Cookie": true, "Set-Cookie": true,
}

// sensitiveKey says whether a JSON key's value, whole subtree included,
// stays out of the log: exact names, any case, '-' read as '_', and the
// suffixes that name a credential (…_password, …_secret, …_token).
func sensitiveKey(k string) bool {
	k = strings.ReplaceAll(strings.ToLower(k), "-", "_")
	switch k {
	case "password", "passwd", "secret", "token", "auth_token", "x_auth_token", "x_subject_token", "id_token",
		"access_token", "refresh_token", "payload", "passphrase", "credential", "credentials", "blob", "totp",
		"passcode", "adminpass", "key", "private_key", "client_secret", "application_credential_secret":
		return true
	}
	for _, suf := range []string{"password", "passwd", "_secret", "_token", "_key"} {
		if strings.HasSuffix(k, suf) {
			return true
		}
	}
	return false
}

func (t *debugTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	var reqBody []byte
	if req.Body != nil && req.GetBody != nil {
		if rc, err := req.GetBody(); err == nil {
			reqBody, _ = io.ReadAll(io.LimitReader(rc, maxLoggedBody+1))
			rc.Close()
		}
	}
	resp, err := t.next.RoundTrip(req)
	var b strings.Builder
	logLine(&b, "REQ: %s %s", req.Method, req.URL.Redacted())
	writeHeaders(&b, req.Header)
	if len(reqBody) > 0 {
		fmt.Fprintf(&b, "  body: %s\n", RedactJSON(reqBody))
	}
	if err != nil {
		logLine(&b, "RESP: error after %s: %v", time.Since(start).Round(time.Millisecond), err)
	} else {
		// the policy layer registers it too, but only after this line is logged
		RegisterSecret(resp.Header.Get("X-Subject-Token"))
		logLine(&b, "RESP: %s (%s)", resp.Status, time.Since(start).Round(time.Millisecond))
		writeHeaders(&b, resp.Header)
		if resp.Body != nil && strings.Contains(resp.Header.Get("Content-Type"), "json") {
			// This layer sits below the size cap, so it keeps the cap
			// itself: never more than MaxResponseBytes+1 bytes in memory.
			var body []byte
			var rerr error
			if resp.ContentLength <= MaxResponseBytes {
				body, rerr = io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
			}
			resp.Body.Close()
			if resp.ContentLength > MaxResponseBytes || int64(len(body)) > MaxResponseBytes {
				resp, err = nil, &ResponseTooLargeError{URL: req.URL.Redacted(), Limit: MaxResponseBytes}
				logLine(&b, "  body: %v", err)
			} else {
				// a body cut short stays an error for the caller
				resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{rerr}))
				if rerr == nil && len(body) > 0 {
					fmt.Fprintf(&b, "  body: %s\n", RedactJSON(body))
				}
			}
		}
	}
	t.mu.Lock()
	io.WriteString(t.w, b.String())
	t.mu.Unlock()
	return resp, err
}

// logLine writes one line, scrubbed as text.
func logLine(b *strings.Builder, format string, a ...any) {
	b.WriteString(Scrub(fmt.Sprintf(format, a...)))
	b.WriteByte('\n')
}

// errReader ends a replayed body with the error the first read met (nil:
// io.EOF).
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) {
	if e.err == nil {
		return 0, io.EOF
	}
	return 0, e.err
}

func writeHeaders(b *strings.Builder, h http.Header) {
	for k, vs := range h {
		v := strings.Join(vs, ", ")
		if sensitiveHeaders[http.CanonicalHeaderKey(k)] || sensitiveKey(k) {
			v = "<redacted>"
		}
		logLine(b, "  %s: %s", k, v)
	}
}

// RedactJSON returns a JSON document with the values of sensitive keys
// replaced and every other string scrubbed as text (Scrub): a server's
// message may echo a password or a token. Keys, numbers and literals stay
// as they are. Anything that is not JSON is not logged at all.
func RedactJSON(body []byte) string {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Sprintf("<%d bytes, not JSON, not shown>", len(body))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(redactValue(v)); err != nil {
		return "<unprintable>"
	}
	out := bytes.TrimSpace(buf.Bytes())
	if len(out) > maxLoggedBody {
		return string(out[:maxLoggedBody]) + "…"
	}
	return string(out)
}

func redactValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if sensitiveKey(k) {
				x[k] = "<redacted>"
			} else {
				x[k] = redactValue(val)
			}
		}
	case []any:
		for i := range x {
			x[i] = redactValue(x[i])
		}
	case string:
		return Scrub(x)
	}
	return v
}
