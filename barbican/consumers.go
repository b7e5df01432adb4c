package barbican

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
)

// Barbican's microversions (barbican/api/controllers/versions.py):
// 1.1 brought secret consumers back (the code is in Barbican 15, Zed;
// its release note in 16, 2023.1); 1.2 (master after 2026.1, merged
// 2026-05) refuses DELETE /v1/secrets/{id} of a secret with consumers
// unless ?force=true — and only when the request asks for 1.2.
const (
	versionHeader = "OpenStack-API-Version"
	// ConsumersMicroversion is the first with secret consumers.
	ConsumersMicroversion = "1.1"
	// DeleteRefusalMicroversion is the first that refuses the delete.
	DeleteRefusalMicroversion = "1.2"
)

// API is the key manager's highest microversion, e.g. {1, 2}.
type API struct{ Major, Minor int }

func (a API) String() string { return fmt.Sprintf("%d.%d", a.Major, a.Minor) }

// HasConsumers says whether secrets have consumers at this API.
func (a API) HasConsumers() bool { return a.Major > 1 || a.Major == 1 && a.Minor >= 1 }

// RefusesDelete says whether a delete asking for 1.2 is refused while
// the secret has consumers.
func (a API) RefusesDelete() bool { return a.Major > 1 || a.Major == 1 && a.Minor >= 2 }

// ConsumersUnavailable is the line for a key manager without consumers.
func ConsumersUnavailable(a API) string {
	return fmt.Sprintf("secret consumers are not available before key-manager API 1.1 (Barbican 15, Zed); this cloud's key-manager API is %s", a)
}

// DetectAPI reads the key manager's versions document once: GET of its
// root asking for "latest". A microversion-aware Barbican (15+) answers
// with the header and a max_version; an older one ignores the header
// and its document has no max_version: 1.0. Never a trial write.
func DetectAPI(ctx context.Context, km *gophercloud.ServiceClient) (API, error) {
	var body struct {
		Versions any `json:"versions"`
	}
	resp, err := km.Get(ctx, km.Endpoint, &body, &gophercloud.RequestOpts{
		OkCodes: []int{200, 300}, MoreHeaders: map[string]string{versionHeader: "key-manager latest"}})
	if err != nil {
		return API{}, fmt.Errorf("reading the key manager's versions: %v", oneLine(err))
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
	return API{1, 0}, nil
}

func parseVersion(s string) (API, bool) {
	maj, min, ok := strings.Cut(strings.TrimSpace(s), ".")
	a, err1 := strconv.Atoi(maj)
	b, err2 := strconv.Atoi(min)
	if !ok || err1 != nil || err2 != nil || a < 1 || b < 0 {
		return API{}, false
	}
	return API{a, b}, true
}

// Consumer is a secret consumer as Barbican stores it.
type Consumer struct {
	Service      string `json:"service"`
	ResourceType string `json:"resource_type"`
	ResourceID   string `json:"resource_id"`
}

// NovaConsumer is the consumer Nova would register for a guest's secret
// (Nova registers none itself: nova/crypto.py).
func NovaConsumer(serverID string) Consumer {
	return Consumer{Service: "nova", ResourceType: "instance", ResourceID: serverID}
}

func (c Consumer) String() string { return c.Service + "/" + c.ResourceType + "/" + c.ResourceID }

func consumersURL(km *gophercloud.ServiceClient, secretID string) string {
	return km.ServiceURL("secrets", secretID, "consumers")
}

// AddConsumer registers c on a secret (POST …/consumers at 1.1). Barbican
// answers 200 with the secret; registering the same consumer again is a
// no-op there (create_or_update_from).
func AddConsumer(ctx context.Context, km *gophercloud.ServiceClient, secretID string, c Consumer) error {
	_, err := km.Post(ctx, consumersURL(km, secretID), c, nil, &gophercloud.RequestOpts{
		OkCodes: []int{200, 201}, MoreHeaders: map[string]string{versionHeader: "key-manager " + ConsumersMicroversion}})
	return err
}

// RemoveConsumer removes c (DELETE …/consumers with the same body, 1.1).
func RemoveConsumer(ctx context.Context, km *gophercloud.ServiceClient, secretID string, c Consumer) error {
	_, err := km.Request(ctx, http.MethodDelete, consumersURL(km, secretID), &gophercloud.RequestOpts{
		JSONBody: c, KeepResponseBody: false, OkCodes: []int{200, 204},
		MoreHeaders: map[string]string{versionHeader: "key-manager " + ConsumersMicroversion}})
	return err
}

// DeleteSecret deletes a secret asking for microversion (e.g. "1.2", the
// one that refuses a secret with consumers: 400 "Secret cannot be
// deleted as it has consumers."); force adds ?force=true. vtpmctl never
// deletes a secret itself: the live test proves the refusal with it.
func DeleteSecret(ctx context.Context, km *gophercloud.ServiceClient, secretID, microversion string, force bool) error {
	u := km.ServiceURL("secrets", secretID)
	if force {
		u += "?force=true"
	}
	_, err := km.Delete(ctx, u, &gophercloud.RequestOpts{OkCodes: []int{204},
		MoreHeaders: map[string]string{versionHeader: "key-manager " + microversion}})
	return err
}
