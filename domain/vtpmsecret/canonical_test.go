package vtpmsecret

import (
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// UUIDs are compared in their canonical (lower-case) form: a secret
// named, or a consumer registered, for the upper-case form of a live
// guest's UUID is that guest's.

const liveGuest = "6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d11"

func TestInstanceOfCanonical(t *testing.T) {
	for _, name := range []string{NamePrefix + liveGuest, NamePrefix + strings.ToUpper(liveGuest), NamePrefix + "6F1c52f4-7D39-4c51-9A4F-3a8f0f1a6D11"} {
		if id, ok := InstanceOf(name); !ok || id != liveGuest {
			t.Errorf("%q: %q %v, want %q", name, id, ok, liveGuest)
		}
	}
}

// uuidFacts is baseFacts with a guest whose ID is a UUID, its secret
// named for it (the app reads the name with InstanceOf) and consumers cs.
func uuidFacts(t *testing.T, secretName string, cs []Consumer) Facts {
	t.Helper()
	instance, ok := InstanceOf(secretName)
	if !ok {
		t.Fatalf("%q is no vTPM secret name", secretName)
	}
	f := baseFacts()
	f.API = API{1, 1}
	f.Guests = nova.NewGuestList(Guest{ServerID: liveGuest, Name: "win1", ProjectID: "p1", UserID: "alice", Mode: "user", Version: "2.0", Model: "tpm-crb"})
	s := f.Secrets.At(0)
	s.ID, s.Ref, s.InstanceID, s.Consumers = "0a1b2c3d-0000-4000-8000-000000000001", "http://kms/v1/secrets/0a1b2c3d-0000-4000-8000-000000000001", instance, cs
	f.Secrets = NewSecretTable(s)
	return f
}

// A secret named for the upper-case UUID: the guest has its secret (not
// FAILED) and the secret is no orphan, so no cleanup candidate.
func TestUpperCaseNameIsTheGuestsSecret(t *testing.T) {
	r := Audit(uuidFacts(t, NamePrefix+strings.ToUpper(liveGuest), []Consumer{}), now)
	if r.Summary.Failed != 0 || r.Summary.Orphans != 0 || len(r.Orphans) != 0 || r.Guests[0].SecretID == "" {
		t.Fatalf("summary %+v, orphans %+v, guest %+v", r.Summary, r.Orphans, r.Guests[0])
	}
	if ids := CleanupCandidates(r); len(ids) != 0 {
		t.Errorf("cleanup candidates %q", ids)
	}
}

// A consumer registered for the upper-case UUID protects the guest:
// protect registers no second one; unprotect removes it as Barbican
// holds it (a removal of another form finds nothing).
func TestUpperCaseConsumerIsNovas(t *testing.T) {
	upper := NovaConsumer(strings.ToUpper(liveGuest))
	f := uuidFacts(t, NamePrefix+liveGuest, []Consumer{upper})
	r := Audit(f, now)
	if r.Guests[0].Protection != Protected {
		t.Errorf("protection %s: %+v", r.Guests[0].Protection, finding(r, CheckSecretConsumer))
	}
	if p := PlanProtect(f, r, true, nil); len(p.Secrets) != 1 || p.Secrets[0].Action != ActAlready {
		t.Errorf("protect: %+v", p.Secrets)
	}
	u := PlanUnprotect(f, r, true, map[string]bool{liveGuest: true})
	if len(u.Secrets) != 1 || u.Secrets[0].Action != ActWouldRemove || u.Secrets[0].Detail != "" || u.Secrets[0].Consumer() != upper || len(u.Unmatched) != 0 {
		t.Errorf("unprotect: %+v (consumer %v)", u.Secrets, u.Secrets[0].Consumer())
	}
	// the lower-case form, as NovaConsumer makes it, is removed as itself
	f = uuidFacts(t, NamePrefix+liveGuest, []Consumer{NovaConsumer(liveGuest)})
	if u := PlanUnprotect(f, Audit(f, now), true, nil); u.Secrets[0].Consumer() != NovaConsumer(liveGuest) {
		t.Errorf("unprotect: %v", u.Secrets[0].Consumer())
	}
}
