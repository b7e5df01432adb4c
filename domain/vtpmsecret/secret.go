package vtpmsecret

import (
	"strings"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/packed"
)

// NamePrefix is how Nova names every vTPM secret (nova/crypto.py).
const NamePrefix = "vTPM secret for instance "

// What Nova stores (nova/crypto.py): an ACTIVE passphrase.
const (
	SecretTypePassphrase = "passphrase"
	SecretStatusActive   = "ACTIVE"
)

// Guest is a server Nova gives a vTPM (found by app/inventory.List).
type Guest = nova.VTPMGuest

// Secret is a vTPM secret's metadata.
type Secret struct {
	ID         string     `json:"id"`
	Ref        string     `json:"secret_ref"`
	InstanceID string     `json:"instance_id"`
	ProjectID  string     `json:"project_id"`
	CreatorID  string     `json:"creator_id"`
	Type       string     `json:"secret_type"`
	Status     string     `json:"status"`
	Created    time.Time  `json:"created"`
	Expiration *time.Time `json:"expiration,omitempty"`
	// ProjectAccess is the ACL's project-access; nil when not read.
	ProjectAccess *bool `json:"project_access,omitempty"`
	// ACLError says why the ACL of this one secret could not be read.
	ACLError string `json:"acl_error,omitempty"`
	// ACLRefused: the ACL read was refused (403): the caller's scope,
	// not a failed read.
	ACLRefused bool `json:"-"`
	// Consumers as listed at key-manager API 1.1; nil when not read.
	Consumers []Consumer `json:"consumers,omitempty"`
}

// Unread is why a user could not be looked up ("" when it was).
type Unread string

const (
	// UnreadNoIdentity: the catalog has no Keystone; nothing was asked.
	UnreadNoIdentity Unread = "no_identity"
	// UnreadForbidden: Keystone refused the read (403): the caller's
	// scope, not a failure.
	UnreadForbidden Unread = "forbidden"
	// UnreadFailed: the read failed; the user's Detail says how.
	UnreadFailed Unread = "failed"
)

// User is a Keystone user as the audit knows it.
type User struct {
	ID, Name string
	Exists   bool
	Enabled  bool
	Unread   Unread
	// Detail is the failed read on one line (UnreadFailed).
	Detail string
}

// Why says, in words, why the user could not be looked up ("" when it
// was): the one place these reasons are worded.
func (u User) Why() string {
	switch u.Unread {
	case "":
		return ""
	case UnreadNoIdentity:
		return "no identity endpoint"
	case UnreadForbidden:
		return "no permission to read Keystone users (needs admin or reader)"
	}
	return u.Detail
}

// InstanceOf returns the instance UUID of a Nova vTPM secret name, in
// the canonical (lower-case) form Nova stores and is asked with: a
// secret named for the upper-case form is its guest's, and Nova (on
// PostgreSQL) answers 404 for that form of a live server's UUID.
func InstanceOf(name string) (string, bool) {
	if !strings.HasPrefix(name, NamePrefix) {
		return "", false
	}
	// Only Nova's own form: anyone may name a secret, and this ID ends up
	// in a cleanup script an admin runs.
	return packed.CanonicalUUID(strings.TrimPrefix(name, NamePrefix))
}

// IsUUID says whether s is a UUID in its 8-4-4-4-12 hex form, of either
// case (packed.CanonicalUUID gives its canonical form).
func IsUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}
