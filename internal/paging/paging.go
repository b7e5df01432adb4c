package paging

import (
	"context"
	"fmt"
	"net/url"
	"sync"
)

// MaxPages bounds one list. 10,000 pages of 1,000 servers is ten million
// objects: far past any cloud, short of running out of memory.
var MaxPages = 10000

type key struct{}

type guard struct {
	what   string
	mu     sync.Mutex
	origin string
	seen   map[string]bool
	pages  int
	// lastUnauthorized: gophercloud repeats a request after re-authenticating.
	lastUnauthorized string
}

// Guard returns a context under which every GET belongs to one paginated
// list named what ("server list").
func Guard(ctx context.Context, what string) context.Context {
	return context.WithValue(ctx, key{}, &guard{what: what, seen: map[string]bool{}})
}

// Error is a list the server would not let end, or sent elsewhere.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// Check is called before a GET is sent; it refuses a repeated page, a
// page past MaxPages, and a page on another scheme, host or port than the
// list's first request.
func Check(ctx context.Context, u *url.URL) error {
	g, _ := ctx.Value(key{}).(*guard)
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	origin := u.Scheme + "://" + u.Host
	s := u.String()
	switch {
	case g.origin == "":
		g.origin = origin
	case origin != g.origin:
		return &Error{fmt.Sprintf("%s: the server's next link points to %s, not to the endpoint %s; not followed (the token is never sent elsewhere)", g.what, origin, g.origin)}
	}
	if g.seen[s] && g.lastUnauthorized != s {
		return &Error{fmt.Sprintf("%s: the server returned a next link to a page it already sent (%s); stopped instead of looping", g.what, u.Redacted())}
	}
	g.lastUnauthorized = ""
	g.seen[s] = true
	g.pages++
	if g.pages > MaxPages {
		return &Error{fmt.Sprintf("%s: more than %d pages; stopped (a server that never ends its list?)", g.what, MaxPages)}
	}
	return nil
}

// Unauthorized records that a GET was answered 401, so its repeat after
// re-authentication is not taken for a loop.
func Unauthorized(ctx context.Context, u *url.URL) {
	if g, _ := ctx.Value(key{}).(*guard); g != nil {
		g.mu.Lock()
		g.lastUnauthorized = u.String()
		g.mu.Unlock()
	}
}
