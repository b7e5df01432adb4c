package cloud

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/gophercloud/gophercloud/v2"
)

// maxServerMessage bounds what a server's error body may add to the one
// line: a Glance HTML page or a traceback must not fill the terminal.
const maxServerMessage = 300

// endpoints maps every service endpoint a session has handed a client
// for to its service type, so a refused request's URL can be named by
// its service and the path below the endpoint (the version prefix and
// Cinder's project ID are the endpoint's, not the request's).
var endpoints = struct {
	sync.RWMutex
	kind map[string]string
}{kind: map[string]string{}}

// registerEndpoint records that URLs under endpoint belong to kind.
func registerEndpoint(endpoint, kind string) {
	if endpoint == "" {
		return
	}
	endpoints.Lock()
	defer endpoints.Unlock()
	endpoints.kind[endpoint] = kind
}

// serviceOf is the service and the path below its endpoint for a request
// URL (the query dropped: it repeats names the user gave, and the line is
// about which call failed). An unknown origin keeps the URL's path.
func serviceOf(rawURL string) (service, path string) {
	noQuery, _, _ := strings.Cut(rawURL, "?")
	endpoints.RLock()
	defer endpoints.RUnlock()
	best := ""
	for ep := range endpoints.kind {
		if strings.HasPrefix(noQuery, ep) && len(ep) > len(best) {
			best = ep
		}
	}
	if best != "" {
		if rest := strings.TrimPrefix(noQuery[len(best):], "/"); rest != "" {
			return endpoints.kind[best], "/" + rest
		}
		// The endpoint itself (its version document): "/" would hide
		// which one.
		if u, err := url.Parse(best); err == nil && u.Path != "" {
			return endpoints.kind[best], u.Path
		}
		return endpoints.kind[best], "/"
	}
	if u, err := url.Parse(noQuery); err == nil && u.Path != "" {
		return "", u.Path
	}
	return "", noQuery
}

// APIErrorLine is a refused request as one line: method, service, path
// below the service's endpoint, status, and the server's own message,
// e.g. `GET compute /servers/detail: 403 Forbidden: Policy doesn't allow
// … to be performed.` It replaces gophercloud's "Expected HTTP response
// code [200 204 300] when accessing [GET …]", which names the codes the
// client hoped for rather than what the server said.
func APIErrorLine(e gophercloud.ErrUnexpectedResponseCode) string {
	service, path := serviceOf(e.URL)
	where := e.Method + " " + path
	if service != "" {
		where = e.Method + " " + service + " " + path
	}
	status := fmt.Sprint(e.Actual)
	if t := http.StatusText(e.Actual); t != "" {
		status += " " + t
	}
	line := where + ": " + status
	if msg := ServerMessage(e.Body, e.Actual); msg != "" {
		line += ": " + msg
	}
	return line
}

// ServerMessage is what an OpenStack service said about a refusal, from
// the error bodies the services send: Nova and Cinder's {"forbidden":
// {"message": …}}, Keystone's {"error": {"message": …}}, Barbican's
// {"code", "title", "description"}, Placement's {"errors": [{"detail"}]},
// Glance's (webob's) HTML or plain text. One line, at most
// maxServerMessage characters; "" when the body says nothing beyond the
// status. Control characters are the printer's business (exitCode
// sanitizes every line it prints).
func ServerMessage(body []byte, status int) string {
	s := strings.TrimSpace(string(body))
	if s == "" {
		return ""
	}
	msg := ""
	var v any
	if json.Unmarshal([]byte(s), &v) == nil {
		// A shape none of the services uses: the body as it came
		// (bounded below) says more than nothing.
		if msg = jsonMessage(v); msg == "" {
			msg = s
		}
	} else {
		msg = plainMessage(s)
	}
	msg = strings.Join(strings.Fields(msg), " ")
	// webob and Barbican repeat the status as the first words.
	for _, prefix := range []string{fmt.Sprintf("%d %s", status, http.StatusText(status)), http.StatusText(status), fmt.Sprint(status)} {
		if rest, ok := strings.CutPrefix(msg, prefix); ok && (rest == "" || strings.ContainsAny(rest[:1], " :.")) {
			msg = strings.TrimLeft(rest, " :.")
			break
		}
	}
	return bound(msg, maxServerMessage)
}

// jsonMessage finds the message in a decoded error body.
func jsonMessage(v any) string {
	switch b := v.(type) {
	case string:
		return b
	case []any: // Placement: {"errors": [...]}, several joined
		var parts []string
		for _, e := range b {
			if m := jsonMessage(e); m != "" {
				parts = append(parts, m)
			}
		}
		return strings.Join(parts, "; ")
	case map[string]any:
		// The object itself says it (Barbican, Placement's entries, a
		// bare {"message": …}).
		for _, k := range []string{"message", "description", "detail", "faultstring", "title"} {
			if s, ok := b[k].(string); ok && strings.TrimSpace(s) != "" {
				return s
			}
		}
		// Nova, Cinder, Keystone, Neutron: one key naming the fault,
		// whose value says it ({"itemNotFound": {"message": …}}).
		keys := make([]string, 0, len(b))
		for k := range b {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			switch b[k].(type) {
			case map[string]any, []any:
				if m := jsonMessage(b[k]); m != "" {
					return m
				}
			}
		}
	}
	return ""
}

var (
	htmlTitle = regexp.MustCompile(`(?is)<(title|h1)>.*?</(title|h1)>`)
	htmlTag   = regexp.MustCompile(`(?s)<[^>]*>`)
)

// plainMessage is the text of a plain or HTML body (webob's error pages:
// a title and heading repeating the status, then the message).
func plainMessage(s string) string {
	if strings.HasPrefix(s, "<") {
		s = htmlTitle.ReplaceAllString(s, " ")
		s = html.UnescapeString(htmlTag.ReplaceAllString(s, " "))
	}
	return s
}

// bound cuts s to at most n runes, marking the cut.
func bound(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n])) + "…"
}

// ErrorText is err's text with every refused API request in it said by
// APIErrorLine (method, service, path, status, the server's own
// message) instead of gophercloud's "Expected HTTP response code [200
// 204 300] when accessing [GET …]". The wrapping context stays. It is
// the one text of an error a user reads, on stderr or inside a result.
func ErrorText(err error) string {
	s := err.Error()
	for _, code := range responseErrors(err) {
		s = strings.Replace(s, code.Error(), APIErrorLine(code), 1)
	}
	return s
}

// responseErrors are the gophercloud response errors in err's tree
// (errors.Join and %w chains), outermost first.
func responseErrors(err error) []gophercloud.ErrUnexpectedResponseCode {
	var out []gophercloud.ErrUnexpectedResponseCode
	var walk func(error)
	walk = func(e error) {
		switch v := e.(type) {
		case nil:
			return
		case gophercloud.ErrUnexpectedResponseCode:
			out = append(out, v)
		case *gophercloud.ErrUnexpectedResponseCode:
			out = append(out, *v)
		case *gophercloud.ErrUnableToReauthenticate:
			walk(v.ErrOriginal)
		}
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				walk(e)
			}
		}
	}
	walk(err)
	return out
}
