package cloud

import (
	"net/http"
	"strings"
	"testing"
)

// strictHandler answers only the requests a test declares, by method and
// request URI as sent ("GET /servers/detail?limit=1"; a key ending in "*"
// matches any rest), and none that asks for a microversion (no route
// declares one); any other request fails the test with its request line
// (501). These tests send through the transport layers: a layer that
// rewrote, dropped or invented a request would otherwise get a catch-all
// answer and pass.
func strictHandler(t testing.TB, routes map[string]http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Method + " " + r.URL.RequestURI()
		h := routes[key]
		for k, rh := range routes {
			if p, ok := strings.CutSuffix(k, "*"); h == nil && ok && strings.HasPrefix(key, p) {
				h = rh
			}
		}
		for _, mv := range []string{"OpenStack-API-Version", "X-OpenStack-Nova-API-Version"} {
			if v := r.Header.Get(mv); v != "" {
				key, h = key+" ["+v+"]", nil
			}
		}
		if h == nil {
			t.Errorf("unexpected request %s", key)
			w.WriteHeader(http.StatusNotImplemented)
			return
		}
		h(w, r)
	})
}
