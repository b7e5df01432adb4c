package vtpmsecret

import (
	"encoding/json"
	"iter"
	"slices"
	"time"

	"github.com/vtpmctl/vtpmctl/internal/packed"
)

// SecretTable is an audit's secrets in the order they were listed,
// packed: 64 bytes a secret where a Secret with its strings takes about
// 330 (at 500,000 secrets, 32 MB instead of 165). A secret packs when
// its IDs are lowercase UUIDs, its secret_ref is a shared prefix and its
// ID, and the rest is what Nova's secrets are (no expiration, no ACL
// error, no consumer but Nova's own for the instance); any other is kept
// whole. At gives back each secret as it was added, field for field: Add
// unpacks what it packed and keeps the secret whole where the two differ.
// A SecretTable is a handle, as a map is: once it holds a secret its
// copies share its secrets, and an Add through one is seen through all (a
// copy of the zero table, which is empty, does not: add through a pointer
// to it).
type SecretTable struct{ *secretRows }

type secretRows struct {
	rows  []packedSecret
	whole map[int32]*Secret
	strs  packed.Strings // projects, creators, types, statuses, ref prefixes
}

type packedSecret struct {
	id, instance [16]byte
	created      int64 // Unix nanoseconds, UTC
	// indexes into strs; ref is the secret_ref before the ID
	ref, project, creator, kind, status uint32
	access                              tri
	consumers                           consumersHeld
	whole                               bool
	aclRefused                          bool
}

// tri is a *bool packed: not read, false, true.
type tri uint8

const (
	triUnread tri = iota
	triFalse
	triTrue
)

// consumersHeld is a packed secret's consumers: not read, read and none,
// or Nova's one for the secret's instance.
type consumersHeld uint8

const (
	consumersUnread consumersHeld = iota
	consumersNone
	consumersNova
)

// the ProjectAccess of unpacked secrets; nothing writes through it
var accessTrue, accessFalse = true, false

// NewSecretTable is a table of secrets, in their order.
func NewSecretTable(secrets ...Secret) SecretTable {
	var t SecretTable
	t.Add(secrets...)
	return t
}

// Add appends secrets, in their order.
func (t *SecretTable) Add(secrets ...Secret) {
	if t.secretRows == nil {
		t.secretRows = &secretRows{}
	}
	for _, s := range secrets {
		i := int32(len(t.rows))
		if p, ok := t.pack(s); ok {
			t.rows = append(t.rows, p)
			if sameSecret(t.unpack(p), s) {
				continue
			}
			t.rows = t.rows[:i]
		}
		if t.whole == nil {
			t.whole = map[int32]*Secret{}
		}
		t.rows = append(t.rows, packedSecret{whole: true})
		t.whole[i] = &s
	}
}

// Len is the number of secrets.
func (t SecretTable) Len() int {
	if t.secretRows == nil {
		return 0
	}
	return len(t.rows)
}

// Whole is how many secrets could not be packed (kept whole): a test
// checks that Barbican's secrets, as listed, all pack.
func (t SecretTable) Whole() int {
	if t.secretRows == nil {
		return 0
	}
	return len(t.whole)
}

// At is the i-th secret as it was added.
func (t SecretTable) At(i int) Secret {
	p := t.rows[i]
	if p.whole {
		return *t.whole[int32(i)]
	}
	return t.unpack(p)
}

// All yields each secret with its index, in order.
func (t SecretTable) All() iter.Seq2[int, Secret] {
	return func(yield func(int, Secret) bool) {
		for i := range t.Len() {
			if !yield(i, t.At(i)) {
				return
			}
		}
	}
}

// instanceKey is secret i's instance as an index key, without
// building its string where it is packed.
func (t SecretTable) instanceKey(i int) idKey {
	if p := t.rows[i]; !p.whole {
		return idKey{uuid: p.instance, isUUID: true}
	}
	return keyOf(t.whole[int32(i)].InstanceID)
}

// secretKey is secret i's ID as instanceKey gives its instance.
func (t SecretTable) secretKey(i int) idKey {
	if p := t.rows[i]; !p.whole {
		return idKey{uuid: p.id, isUUID: true}
	}
	return keyOf(t.whole[int32(i)].ID)
}

func (t *SecretTable) pack(s Secret) (packedSecret, bool) {
	var p packedSecret
	var ok1, ok2 bool
	if p.id, ok1 = packed.UUID(s.ID); !ok1 {
		return p, false
	}
	if p.instance, ok2 = packed.UUID(s.InstanceID); !ok2 || s.Expiration != nil || s.ACLError != "" || len(s.Ref) < len(s.ID) || s.Ref[len(s.Ref)-len(s.ID):] != s.ID {
		return p, false
	}
	switch {
	case s.Consumers == nil:
	case len(s.Consumers) == 0:
		p.consumers = consumersNone
	case len(s.Consumers) == 1 && s.Consumers[0] == NovaConsumer(s.InstanceID):
		p.consumers = consumersNova
	default:
		return p, false
	}
	if s.ProjectAccess != nil {
		p.access = triFalse
		if *s.ProjectAccess {
			p.access = triTrue
		}
	}
	p.created, p.aclRefused = s.Created.UnixNano(), s.ACLRefused
	p.ref = t.intern(s.Ref[:len(s.Ref)-len(s.ID)])
	p.project, p.creator, p.kind, p.status = t.intern(s.ProjectID), t.intern(s.CreatorID), t.intern(s.Type), t.intern(s.Status)
	return p, true
}

func (t SecretTable) unpack(p packedSecret) Secret {
	id, instance := packed.FormatUUID(p.id), packed.FormatUUID(p.instance)
	s := Secret{ID: id, Ref: t.strs.At(p.ref) + id, InstanceID: instance, ProjectID: t.strs.At(p.project), CreatorID: t.strs.At(p.creator),
		Type: t.strs.At(p.kind), Status: t.strs.At(p.status), Created: time.Unix(0, p.created).UTC(), ACLRefused: p.aclRefused}
	switch p.access {
	case triTrue:
		s.ProjectAccess = &accessTrue
	case triFalse:
		s.ProjectAccess = &accessFalse
	}
	switch p.consumers {
	case consumersNone:
		s.Consumers = []Consumer{}
	case consumersNova:
		s.Consumers = []Consumer{NovaConsumer(instance)}
	}
	return s
}

func (t *SecretTable) intern(s string) uint32 { return t.strs.Index(s) }

// sameSecret: b is a, field for field (a time's location included).
func sameSecret(a, b Secret) bool {
	return a.ID == b.ID && a.Ref == b.Ref && a.InstanceID == b.InstanceID && a.ProjectID == b.ProjectID && a.CreatorID == b.CreatorID &&
		a.Type == b.Type && a.Status == b.Status && a.Created == b.Created && a.Expiration == nil && b.Expiration == nil &&
		(a.ProjectAccess == nil) == (b.ProjectAccess == nil) && (a.ProjectAccess == nil || *a.ProjectAccess == *b.ProjectAccess) &&
		a.ACLError == b.ACLError && a.ACLRefused == b.ACLRefused && (a.Consumers == nil) == (b.Consumers == nil) && slices.Equal(a.Consumers, b.Consumers)
}

// idKey is an ID as an index key: a lowercase UUID's bytes, or any
// other string as it is.
type idKey struct {
	uuid   [16]byte
	other  string
	isUUID bool
}

func keyOf(s string) idKey {
	if u, ok := packed.UUID(s); ok {
		return idKey{uuid: u, isUUID: true}
	}
	return idKey{other: s}
}

// uuidIndex maps IDs to an int32 with no string held for a lowercase
// UUID (most are: Nova's and Barbican's).
type uuidIndex struct {
	uuids map[[16]byte]int32
	other map[string]int32
}

func newUUIDIndex(n int) uuidIndex {
	return uuidIndex{uuids: make(map[[16]byte]int32, n), other: map[string]int32{}}
}

func (x uuidIndex) put(k idKey, v int32) {
	if k.isUUID {
		x.uuids[k.uuid] = v
		return
	}
	x.other[k.other] = v
}

func (x uuidIndex) lookup(k idKey) (int32, bool) {
	if k.isUUID {
		v, ok := x.uuids[k.uuid]
		return v, ok
	}
	v, ok := x.other[k.other]
	return v, ok
}

func (x uuidIndex) get(id string) (int32, bool) { return x.lookup(keyOf(id)) }

// MarshalJSON writes the secrets as a list, as a []Secret is written.
func (t SecretTable) MarshalJSON() ([]byte, error) {
	out := make([]Secret, 0, t.Len())
	for _, s := range t.All() {
		out = append(out, s)
	}
	return json.Marshal(out)
}
