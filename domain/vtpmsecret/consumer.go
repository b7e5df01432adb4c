package vtpmsecret

import (
	"fmt"

	"github.com/vtpmctl/vtpmctl/internal/packed"
)

// API is the key manager's highest microversion, e.g. {1, 2}
// (barbican/api/controllers/versions.py): 1.1 brought secret consumers
// back (the code is in Barbican 15, Zed; its release note in 16,
// 2023.1); 1.2 (master after 2026.1, merged 2026-05) refuses DELETE of a
// secret with consumers unless forced — and only when the request asks
// for 1.2.
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

// Consumer is a secret consumer as Barbican stores it.
type Consumer struct {
	Service      string `json:"service"`
	ResourceType string `json:"resource_type"`
	ResourceID   string `json:"resource_id"`
}

// Nova's consumer: service nova, resource type instance.
const (
	novaService  = "nova"
	novaResource = "instance"
)

// NovaConsumer is the consumer Nova would register for a guest's secret
// (Nova registers none itself: nova/crypto.py).
func NovaConsumer(serverID string) Consumer {
	return Consumer{Service: novaService, ResourceType: novaResource, ResourceID: serverID}
}

// IsNova says whether c is a nova/instance consumer, of any server.
func (c Consumer) IsNova() bool { return c.Service == novaService && c.ResourceType == novaResource }

// Server is the server a nova/instance consumer names, its UUID in the
// canonical (lower-case) form when it is one; as stored otherwise.
func (c Consumer) Server() string {
	if id, ok := packed.CanonicalUUID(c.ResourceID); ok {
		return id
	}
	return c.ResourceID
}

// IsNovaFor says whether c is Nova's consumer for serverID, the UUIDs
// compared in their canonical form (Barbican keeps what it was given).
func (c Consumer) IsNovaFor(serverID string) bool {
	if id, ok := packed.CanonicalUUID(serverID); ok {
		serverID = id
	}
	return c.IsNova() && c.Server() == serverID
}

// novaConsumerOf is the first of cs that is Nova's consumer for serverID,
// as stored (what a removal must name).
func novaConsumerOf(cs []Consumer, serverID string) (Consumer, bool) {
	for _, c := range cs {
		if c.IsNovaFor(serverID) {
			return c, true
		}
	}
	return Consumer{}, false
}

func (c Consumer) String() string { return c.Service + "/" + c.ResourceType + "/" + c.ResourceID }
