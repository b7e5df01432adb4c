package cloud

import (
	"regexp"
	"strings"
	"sync"
)

// Credentials must not reach a terminal even when a server echoes them in
// an error body, or the user put them in auth_url: Connect registers what
// it authenticates with, and every error line and debug line is scrubbed.
var (
	scrubMu  sync.RWMutex
	scrubSet = map[string]bool{}
)

// RegisterSecret adds a value that Scrub removes wherever it appears.
// Values shorter than 4 characters are not registered: they would blank
// out ordinary words.
func RegisterSecret(v string) {
	if len(v) < 4 {
		return
	}
	scrubMu.Lock()
	scrubSet[v] = true
	scrubMu.Unlock()
}

var userinfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/\s@]+@`)

// Scrub removes registered credentials and URL user-info from s.
func Scrub(s string) string {
	s = userinfo.ReplaceAllString(s, "${1}<redacted>@")
	scrubMu.RLock()
	defer scrubMu.RUnlock()
	for v := range scrubSet {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, "<redacted>")
		}
	}
	return s
}
