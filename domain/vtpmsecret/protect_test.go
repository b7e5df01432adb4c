package vtpmsecret

import (
	"strings"
	"testing"
)

// TestProtectNotAuditableGuest: a guest without a secret is not
// protected, and says the audit's first finding that did not pass.
func TestProtectNotAuditableGuest(t *testing.T) {
	f := baseFacts()
	f.Audited = map[string]bool{}
	p := PlanProtect(f, Audit(f, now), true, nil)
	if len(p.Secrets) != 1 || p.Secrets[0].Action != ActNotProtected || !strings.HasPrefix(p.Secrets[0].Detail, "PROJECT: not auditable") {
		t.Errorf("%+v", p.Secrets)
	}
	if got := firstFinding(GuestResult{}); got != "no secret found" {
		t.Errorf("%q", got)
	}
}

// TestConsumersUnavailable: the line for a key manager without
// consumers names the API it has.
func TestConsumersUnavailable(t *testing.T) {
	if got := ConsumersUnavailable(API{1, 0}); !strings.Contains(got, "not available before key-manager API 1.1") || !strings.HasSuffix(got, "API is 1.0") {
		t.Error(got)
	}
	for _, c := range []struct {
		api                API
		consumers, refuses bool
	}{{API{1, 0}, false, false}, {API{1, 1}, true, false}, {API{1, 2}, true, true}, {API{2, 0}, true, true}} {
		if c.api.HasConsumers() != c.consumers || c.api.RefusesDelete() != c.refuses {
			t.Errorf("%s: consumers %v, refuses %v", c.api, c.api.HasConsumers(), c.api.RefusesDelete())
		}
	}
}
