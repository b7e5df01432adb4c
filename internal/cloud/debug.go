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
// credential removed: auth headers, and the values of JSON keys that can
// hold a password, token or secret.
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

// sensitiveKeys are JSON keys whose values never reach the log.
var sensitiveKeys = map[string]bool{
	"password": true, "secret": true, "token": true, "id_token": true, "access_token": true,
	"payload": true, "passphrase": true, "credential": true, "blob": true, "totp": true,
	"passcode": true, "adminPass": true, "key": true, "private_key": true,
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
	fmt.Fprintf(&b, "REQ: %s %s\n", req.Method, req.URL.Redacted())
	writeHeaders(&b, req.Header)
	if len(reqBody) > 0 {
		fmt.Fprintf(&b, "  body: %s\n", RedactJSON(reqBody))
	}
	if err != nil {
		fmt.Fprintf(&b, "RESP: error after %s: %v\n", time.Since(start).Round(time.Millisecond), err)
	} else {
		fmt.Fprintf(&b, "RESP: %s (%s)\n", resp.Status, time.Since(start).Round(time.Millisecond))
		writeHeaders(&b, resp.Header)
		if resp.Body != nil && strings.Contains(resp.Header.Get("Content-Type"), "json") {
			body, rerr := io.ReadAll(resp.Body)
			resp.Body.Close()
			resp.Body = io.NopCloser(bytes.NewReader(body))
			if rerr == nil && len(body) > 0 {
				fmt.Fprintf(&b, "  body: %s\n", RedactJSON(body))
			}
		}
	}
	t.mu.Lock()
	io.WriteString(t.w, b.String())
	t.mu.Unlock()
	return resp, err
}

func writeHeaders(b *strings.Builder, h http.Header) {
	for k, vs := range h {
		v := strings.Join(vs, ", ")
		if sensitiveHeaders[http.CanonicalHeaderKey(k)] {
			v = "<redacted>"
		}
		fmt.Fprintf(b, "  %s: %s\n", k, v)
	}
}

// RedactJSON returns a JSON document with the values of sensitive keys
// replaced; anything that is not JSON is not logged at all.
func RedactJSON(body []byte) string {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Sprintf("<%d bytes, not JSON, not shown>", len(body))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(redact(v)); err != nil {
		return "<unprintable>"
	}
	out := bytes.TrimSpace(buf.Bytes())
	if len(out) > maxLoggedBody {
		return string(out[:maxLoggedBody]) + "…"
	}
	return string(out)
}

func redact(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			switch val.(type) {
			case map[string]any, []any:
				// keystone's {"token": {catalog…}} holds no secret itself,
				// but token auth sends {"token": {"id": TOKEN}}.
				if m, ok := val.(map[string]any); ok && sensitiveKeys[strings.ToLower(k)] {
					if _, has := m["id"]; has {
						m["id"] = "<redacted>"
					}
				}
				x[k] = redact(val)
			default:
				if sensitiveKeys[k] || sensitiveKeys[strings.ToLower(k)] {
					x[k] = "<redacted>"
				}
			}
		}
	case []any:
		for i := range x {
			x[i] = redact(x[i])
		}
	}
	return v
}
