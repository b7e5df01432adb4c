package vtpmsecret

import (
	"reflect"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/internal/packed"
)

// barbicanSecret is a secret as the audit lists it from Barbican.
func barbicanSecret(id, instance string) Secret {
	created, _ := time.Parse("2006-01-02T15:04:05", "2026-11-30T08:15:02")
	return Secret{ID: id, Ref: "http://127.0.0.1:9311/v1/secrets/" + id, InstanceID: instance, ProjectID: "0f3a", CreatorID: "9c1e",
		Type: "passphrase", Status: "ACTIVE", Created: created}
}

func TestSecretTable(t *testing.T) {
	const id, instance = "6a4f1f4e-2b9e-4c55-8f1a-0c5b7e3d2a10", "d1b0c3a2-7e6f-4a5b-9c8d-1e2f3a4b5c6d"
	yes, no := true, false
	exp := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	with := func(change func(*Secret)) Secret { s := barbicanSecret(id, instance); change(&s); return s }
	for _, tc := range []struct {
		name   string
		s      Secret
		packed bool
	}{
		{"as Barbican lists it", barbicanSecret(id, instance), true},
		{"ACL read: project access", with(func(s *Secret) { s.ProjectAccess = &yes }), true},
		{"ACL read: private", with(func(s *Secret) { s.ProjectAccess = &no }), true},
		{"ACL refused", with(func(s *Secret) { s.ACLRefused = true }), true},
		{"consumers read: none", with(func(s *Secret) { s.Consumers = []Consumer{} }), true},
		{"consumers read: Nova's for the instance", with(func(s *Secret) { s.Consumers = []Consumer{NovaConsumer(instance)} }), true},
		{"a created time in a zone", with(func(s *Secret) { s.Created = s.Created.In(time.FixedZone("CET", 3600)) }), false},
		{"a created time with a local zone", with(func(s *Secret) { s.Created = s.Created.Local() }), time.Local == time.UTC},
		{"the zero time", with(func(s *Secret) { s.Created = time.Time{} }), false},
		{"consumers: another server's", with(func(s *Secret) { s.Consumers = []Consumer{NovaConsumer(id)} }), false},
		{"consumers: two", with(func(s *Secret) { s.Consumers = []Consumer{NovaConsumer(instance), NovaConsumer(instance)} }), false},
		{"expiration", with(func(s *Secret) { s.Expiration = &exp }), false},
		{"ACL error", with(func(s *Secret) { s.ACLError = "HTTP 500" }), false},
		{"an uppercase ID", with(func(s *Secret) {
			s.ID = "6A4F1F4E-2B9E-4C55-8F1A-0C5B7E3D2A10"
			s.Ref = "http://kms/v1/secrets/" + s.ID
		}), false},
		{"an instance not a UUID", with(func(s *Secret) { s.InstanceID = "srv1" }), false},
		{"an empty instance", with(func(s *Secret) { s.InstanceID = "" }), false},
		{"a ref not ending in the ID", with(func(s *Secret) { s.Ref += "/" }), false},
		{"a ref shorter than the ID", with(func(s *Secret) { s.Ref = "x" }), false},
		{"empty strings", with(func(s *Secret) { s.ProjectID, s.CreatorID, s.Type, s.Status = "", "", "", "" }), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := NewSecretTable(barbicanSecret("00000000-0000-0000-0000-000000000001", instance), tc.s)
			if got := tb.At(1); !reflect.DeepEqual(got, tc.s) {
				t.Errorf("At gives\n%#v\nwant\n%#v", got, tc.s)
			}
			if tb.Len() != 2 || tb.Whole() != map[bool]int{true: 0, false: 1}[tc.packed] {
				t.Errorf("%d secrets, %d whole; want packed %v", tb.Len(), tb.Whole(), tc.packed)
			}
			var ids []string
			for i, s := range tb.All() {
				if s.ID != tb.At(i).ID {
					t.Errorf("All's %d is %s, At's %s", i, s.ID, tb.At(i).ID)
				}
				ids = append(ids, s.ID)
			}
			if len(ids) != 2 {
				t.Errorf("All yields %v", ids)
			}
		})
	}
}

// An index keyed by an instance's UUID bytes finds what its string finds,
// and keeps the empty ID and the zero UUID apart.
func TestUUIDIndex(t *testing.T) {
	x := newUUIDIndex(0)
	zero := "00000000-0000-0000-0000-000000000000"
	for i, id := range []string{zero, "", "srv1", "D1B0C3A2-7E6F-4A5B-9C8D-1E2F3A4B5C6D"} {
		x.put(keyOf(id), int32(i))
	}
	for i, id := range []string{zero, "", "srv1", "D1B0C3A2-7E6F-4A5B-9C8D-1E2F3A4B5C6D"} {
		if v, ok := x.get(id); !ok || v != int32(i) {
			t.Errorf("%q: %d, %v; want %d", id, v, ok, i)
		}
	}
	if _, ok := x.get("d1b0c3a2-7e6f-4a5b-9c8d-1e2f3a4b5c6d"); ok {
		t.Error("the lowercase UUID is found where only its uppercase was put")
	}
}

// FuzzSecretTable: whatever the IDs and ref, a table gives back the
// secret it was given.
func FuzzSecretTable(f *testing.F) {
	f.Add("6a4f1f4e-2b9e-4c55-8f1a-0c5b7e3d2a10", "d1b0c3a2-7e6f-4a5b-9c8d-1e2f3a4b5c6d", "http://kms/v1/secrets/", int64(1764490502))
	f.Add("s1", "", "", int64(0))
	f.Fuzz(func(t *testing.T, id, instance, prefix string, unix int64) {
		s := Secret{ID: id, Ref: prefix + id, InstanceID: instance, ProjectID: prefix, Created: time.Unix(unix, 0).UTC()}
		tb := NewSecretTable(s, s)
		for i := range 2 {
			if got := tb.At(i); !reflect.DeepEqual(got, s) {
				t.Fatalf("At(%d) gives %#v, want %#v", i, got, s)
			}
		}
		if u, ok := packed.UUID(id); ok && packed.FormatUUID(u) != id {
			t.Fatalf("%q reads as a UUID that prints as %q", id, packed.FormatUUID(u))
		}
	})
}

// A table is a handle: a copy's Add is seen through the original.
func TestSecretTableHandle(t *testing.T) {
	var zero SecretTable
	if zero.Len() != 0 || zero.Whole() != 0 {
		t.Fatal("the zero table is not empty")
	}
	for range zero.All() {
		t.Fatal("the zero table yields a secret")
	}
	tb := NewSecretTable(barbicanSecret("6a4f1f4e-2b9e-4c55-8f1a-0c5b7e3d2a10", "d1b0c3a2-7e6f-4a5b-9c8d-1e2f3a4b5c6d"))
	c := tb
	c.Add(Secret{ID: "s2", InstanceID: "srv2"})
	if tb.Len() != 2 || tb.At(1).ID != "s2" {
		t.Errorf("the original sees %d secrets after its copy's Add, want 2", tb.Len())
	}
}
