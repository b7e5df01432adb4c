package barbican

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
)

// Barbican's microversions (barbican/api/controllers/versions.py; what
// each brings: vtpmsecret.API).
const (
	versionHeader = "OpenStack-API-Version"
	// ConsumersMicroversion is the first with secret consumers.
	ConsumersMicroversion = "1.1"
	// DeleteRefusalMicroversion is the first that refuses the delete of
	// a secret with consumers.
	DeleteRefusalMicroversion = "1.2"
)

// microversion is the header asking for version of the key manager.
func microversion(version string) map[string]string {
	return map[string]string{versionHeader: "key-manager " + version}
}

// DetectAPI reads the key manager's versions document once: GET of its
// root asking for "latest". A microversion-aware Barbican (15+) answers
// with the header and a max_version; an older one ignores the header
// and its document has no max_version: 1.0. Never a trial write.
func DetectAPI(ctx context.Context, km *gophercloud.ServiceClient) (vtpmsecret.API, error) {
	var body struct {
		Versions any `json:"versions"`
	}
	resp, err := km.Get(ctx, km.Endpoint, &body, &gophercloud.RequestOpts{OkCodes: []int{200, 300}, MoreHeaders: microversion("latest")})
	if err != nil {
		return vtpmsecret.API{}, fmt.Errorf("reading the key manager's versions: %w", err)
	}
	if a, ok := parseVersion(strings.TrimPrefix(resp.Header.Get(versionHeader), "key-manager ")); ok {
		return a, nil
	}
	// [{"id":"v1","max_version":"1.2",…}] (microversions) or
	// {"values":[{"id":"v1","status":"stable"}]} (before)
	if l, ok := body.Versions.([]any); ok {
		for _, v := range l {
			if m, ok := v.(map[string]any); ok && m["id"] == "v1" {
				if s, _ := m["max_version"].(string); s != "" {
					if a, ok := parseVersion(s); ok {
						return a, nil
					}
				}
			}
		}
	}
	return vtpmsecret.API{Major: 1, Minor: 0}, nil
}

func parseVersion(s string) (vtpmsecret.API, bool) {
	maj, min, ok := strings.Cut(strings.TrimSpace(s), ".")
	a, err1 := strconv.Atoi(maj)
	b, err2 := strconv.Atoi(min)
	if !ok || err1 != nil || err2 != nil || a < 1 || b < 0 {
		return vtpmsecret.API{}, false
	}
	return vtpmsecret.API{Major: a, Minor: b}, true
}
