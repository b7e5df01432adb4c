package barbican

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/keymanager/v1/acls"
	"github.com/gophercloud/gophercloud/v2/openstack/keymanager/v1/secrets"

	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/paging"
)

// secretPage is the secrets asked for per list request (Barbican's cap).
const secretPage = 100

// ListedSecret is a listed secret and, at key-manager API 1.1, its
// consumers (the list carries them: no request per secret).
type ListedSecret struct {
	secrets.Secret
	Consumers []vtpmsecret.Consumer `json:"consumers"`
}

// UnmarshalJSON: secrets.Secret has its own, which would swallow the
// consumers.
func (l *ListedSecret) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &l.Secret); err != nil {
		return err
	}
	// Before API 1.1 no secret has the key: a second decoding of every
	// listed secret (a third of the list's CPU) would find nothing.
	if !mayHoldKey(b, "consumers") {
		l.Consumers = nil
		return nil
	}
	var c struct {
		Consumers []vtpmsecret.Consumer `json:"consumers"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return err
	}
	l.Consumers = c.Consumers
	return nil
}

// mayHoldKey: b may have key as encoding/json matches one: any case,
// escaped, or spelled with a character that folds to one of key's (ſ
// for s). Only plain ASCII without the key, in no case, is sure not to.
func mayHoldKey(b []byte, key string) bool {
	for _, c := range b {
		if c == '\\' || c >= utf8.RuneSelf {
			return true
		}
	}
	return bytes.Contains(bytes.ToLower(b), []byte(key))
}

// ID is the UUID after "secrets/" in the secret_ref; anything else (a
// ref ending in /payload, a path of another shape) is not a secret's.
func (l ListedSecret) ID() (string, bool) {
	segs := strings.Split(strings.TrimRight(l.SecretRef, "/"), "/")
	if n := len(segs); n >= 2 && segs[n-2] == "secrets" && vtpmsecret.IsUUID(segs[n-1]) {
		return segs[n-1], true
	}
	return "", false
}

// ListSecrets asks for the secrets whose name starts with prefix (of the
// token's project: Barbican lists no other) page by page, each page's URL
// built here with the name filter; consumers: ask for API 1.1, whose
// list holds each secret's consumers. Barbican's next link ends the list
// when it is absent, and gives the next page's offset when present; the
// link itself is never followed: before the 2025 fix (Zed … 2025.1) it
// drops every filter but limit and offset, so it would list all of the
// project's secrets. A page's length says nothing: a deployment's
// max_limit_paging may cap pages below the limit asked for. Barbican's
// name filter is SQL LIKE: each may be called with names that only
// look like the prefix.
func ListSecrets(ctx context.Context, km *gophercloud.ServiceClient, prefix string, consumers bool, each func(ListedSecret)) error {
	var opts *gophercloud.RequestOpts
	if consumers {
		opts = &gophercloud.RequestOpts{MoreHeaders: microversion(ConsumersMicroversion)}
	}
	ctx = paging.Guard(ctx, "secret list")
	base := km.ServiceURL("secrets")
	refs := map[string]bool{}
	offset := 0
	for page := 0; ; page++ {
		if page >= paging.MaxPages { // the transport's guard too; this holds without it
			return &paging.Error{Msg: fmt.Sprintf("secret list: more than %d pages; stopped (a server that never ends its list?)", paging.MaxPages)}
		}
		q := url.Values{"name": {prefix + "%"}, "limit": {strconv.Itoa(secretPage)}, "offset": {strconv.Itoa(offset)}}
		var body struct {
			Secrets []ListedSecret `json:"secrets"`
			Next    string         `json:"next"`
		}
		if _, err := km.Get(ctx, base+"?"+q.Encode(), &body, opts); err != nil {
			return err
		}
		fresh := 0
		for _, s := range body.Secrets {
			if !refs[s.SecretRef] {
				refs[s.SecretRef] = true
				fresh++
			}
			each(s)
		}
		if fresh == 0 && len(body.Secrets) > 0 {
			// a server that ignores offset would otherwise be asked MaxPages times
			return &paging.Error{Msg: fmt.Sprintf("secret list: the page at offset %d holds only secrets already listed; stopped (the server ignores offset?)", offset)}
		}
		if body.Next == "" {
			return nil
		}
		next, err := nextOffset(body.Next, offset, len(body.Secrets))
		if err != nil {
			return err
		}
		offset = next
	}
}

// nextOffset is the offset a next link asks for; a link without one
// moves past the page just read. An offset that does not move forward
// would list the same page again: an error, not an end.
func nextOffset(next string, offset, got int) (int, error) {
	n := offset + got
	if u, err := url.Parse(next); err == nil {
		if v := u.Query().Get("offset"); v != "" {
			if o, err := strconv.Atoi(v); err == nil {
				n = o
			}
		}
	}
	if n <= offset {
		return 0, &paging.Error{Msg: fmt.Sprintf("secret list: the next link after offset %d does not move forward (offset %d); stopped", offset, n)}
	}
	return n, nil
}

// ProjectAccess reads a secret's ACL: whether its project's members may
// read it. No ACL row: Barbican forces project access on.
func ProjectAccess(ctx context.Context, km *gophercloud.ServiceClient, secretID string) (bool, error) {
	acl, err := acls.GetSecretACL(ctx, km, secretID).Extract()
	if err != nil {
		return false, err
	}
	if r, ok := (*acl)["read"]; ok {
		return r.ProjectAccess, nil
	}
	return true, nil
}
