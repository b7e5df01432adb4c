package compute

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
)

// A copy of app/inventory's strict server until both use fakecloud.
type strictAPI struct {
	t         *testing.T
	URL       string
	stubs     map[string]string
	mvs       map[string]string // microversion header each request carried
	got       []string
	onRequest func(key string)
}

func newStrictAPI(t *testing.T, stubs map[string]string) *strictAPI {
	a := &strictAPI{t: t, stubs: stubs, mvs: map[string]string{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Method + " " + r.URL.RequestURI()
		a.got = append(a.got, key)
		isCompute := strings.HasPrefix(r.URL.Path, "/compute/")
		mv := r.Header.Get("X-OpenStack-Nova-API-Version")
		if !isCompute {
			mv = r.Header.Get("OpenStack-API-Version") // "volume 3.0"
		}
		a.mvs[key] = mv
		// a stub "… @2.98" (or "… @volume 3.0") answers that microversion only
		if _, at := a.stubs[key+" @"+mv]; at && mv != "" {
			key += " @" + mv
			a.got[len(a.got)-1] = key
		}
		body, ok := a.stubs[key]
		switch {
		case !ok || r.Header.Get("X-Auth-Token") != "tok":
		case isCompute && !strings.Contains(key, " @") && mv != ServerCellDownMicroversion:
			ok, key = false, fmt.Sprintf("%s at microversion %q, want %s", key, mv, ServerCellDownMicroversion)
		case !isCompute && !strings.Contains(key, " @") && mv != "":
			ok, key = false, fmt.Sprintf("%s at microversion %q, want none", key, mv)
		}
		if !ok {
			t.Errorf("unexpected request %s", key)
			w.WriteHeader(http.StatusNotImplemented)
			return
		}
		if a.onRequest != nil {
			a.onRequest(key)
		}
		w.Header().Set("Content-Type", "application/json")
		if code, rest, ok := strings.Cut(body, " "); ok && len(code) == 4 && code[0] == '!' {
			status, err := strconv.Atoi(code[1:])
			if err != nil {
				t.Errorf("stub %s: status %q", key, code)
				status = http.StatusNotImplemented
			}
			w.WriteHeader(status)
			body = rest
		}
		w.Write([]byte(strings.ReplaceAll(body, "$URL", a.URL)))
	}))
	a.URL = srv.URL
	t.Cleanup(func() {
		srv.Close()
		for k := range a.stubs {
			if !contains(a.got, k) {
				t.Errorf("stub never requested: %s", k)
			}
		}
	})
	return a
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func (a *strictAPI) client(path, typ string) *gophercloud.ServiceClient {
	pc := &gophercloud.ProviderClient{HTTPClient: *http.DefaultClient}
	pc.SetToken("tok")
	ep := a.URL + "/" + path + "/"
	sc := &gophercloud.ServiceClient{ProviderClient: pc, Endpoint: ep, ResourceBase: ep, Type: typ}
	if typ == "image" {
		sc.ResourceBase = ep + "v2/"
	}
	return sc
}
