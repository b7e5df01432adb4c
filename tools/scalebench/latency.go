package main

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// service is a route's class in a latency model: what a real cloud's
// services cost differently (a Keystone password token is the dearest,
// a Nova list page next).
type service string

const (
	svcToken     service = "token"     // POST /identity/v3/auth/tokens
	svcKeystone  service = "keystone"  // any other Keystone request
	svcNovaList  service = "nova-list" // a page of a Nova list (servers, hypervisors, flavors)
	svcNova      service = "nova"      // any other Nova request
	svcBarbican  service = "barbican"
	svcGlance    service = "glance"
	svcCinder    service = "cinder"
	svcPlacement service = "placement"
	svcDefault   service = "default" // every class not named
)

var services = []service{svcToken, svcKeystone, svcNovaList, svcNova, svcBarbican, svcGlance, svcCinder, svcPlacement}

// classOf maps a fake's route key ("GET /compute/v2.1/servers/detail").
func classOf(route string) service {
	method, path, _ := strings.Cut(route, " ")
	switch {
	case method == "POST" && path == "/identity/v3/auth/tokens":
		return svcToken
	case strings.HasPrefix(path, "/identity"):
		return svcKeystone
	case strings.HasPrefix(path, "/compute"):
		if strings.HasSuffix(path, "/detail") {
			return svcNovaList
		}
		return svcNova
	case strings.HasPrefix(path, "/key-manager"):
		return svcBarbican
	case strings.HasPrefix(path, "/image"):
		return svcGlance
	case strings.HasPrefix(path, "/volume"):
		return svcCinder
	case strings.HasPrefix(path, "/placement"):
		return svcPlacement
	}
	return svcDefault
}

// latencyModel is a service time per class; default for the rest.
type latencyModel map[service]time.Duration

// profiles name the models the issue measures by.
var profiles = map[string]string{
	// a real cloud's dearest requests: a password token, a Nova page,
	// a Barbican read; everything else 20 ms
	"real": "token=300ms,nova-list=200ms,barbican=50ms,default=20ms",
}

// parseLatency reads "20ms" (every request) or "class=dur,…" or a
// profile's name; "" or "0" is no latency.
func parseLatency(spec string) (latencyModel, error) {
	m := latencyModel{}
	if p, ok := profiles[spec]; ok {
		spec = p
	}
	if spec == "" || spec == "0" {
		return m, nil
	}
	if d, err := time.ParseDuration(spec); err == nil {
		m[svcDefault] = d
		return m, nil
	}
	known := map[service]bool{svcDefault: true}
	for _, s := range services {
		known[s] = true
	}
	for _, part := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(part, "=")
		if !ok || !known[service(k)] {
			return nil, fmt.Errorf("-latency %q: want a duration, a profile (real) or class=duration,… of %v and default", spec, append(services, svcDefault))
		}
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("-latency %q: %s: not a duration", spec, part)
		}
		m[service(k)] = d
	}
	return m, nil
}

func (m latencyModel) of(route string) time.Duration {
	if d, ok := m[classOf(route)]; ok {
		return d
	}
	return m[svcDefault]
}

func (m latencyModel) fake() fakecloud.Latency {
	if len(m) == 0 {
		return nil
	}
	return m.of
}

// String is the model as given back ("default=20ms").
func (m latencyModel) String() string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for k, v := range m {
		parts = append(parts, fmt.Sprintf("%s=%s", k, v))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// serviceTime is Σ latency over the requests a run made: the work a
// pool of N slots divides by N.
func (m latencyModel) serviceTime(byRoute map[string]int) time.Duration {
	var t time.Duration
	for r, n := range byRoute {
		t += time.Duration(n) * m.of(r)
	}
	return t
}
