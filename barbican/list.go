package barbican

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/keymanager/v1/acls"
	"github.com/gophercloud/gophercloud/v2/openstack/keymanager/v1/secrets"

	"github.com/vtpmctl/vtpmctl/internal/paging"
	"github.com/vtpmctl/vtpmctl/internal/parallel"
)

// secretPage is the secrets asked for per list request (Barbican's cap).
const secretPage = 100

// projectSecrets lists a project's vTPM secrets, each once (their ACLs
// are read later, once every project's list is in: readACLs).
func projectSecrets(ctx context.Context, src Sources, project string) ([]Secret, []string, error) {
	km, err := src.KeyManager(ctx, project)
	if err != nil {
		if gophercloud.ResponseCodeIs(err, http.StatusUnauthorized) {
			return nil, nil, fmt.Errorf("Keystone will not scope a token to it (401): the caller has no role in the project")
		}
		return nil, nil, fmt.Errorf("cannot get a token for the project: %v", oneLine(err))
	}
	var out []Secret
	var bad []string
	seen := map[string]bool{} // by secret ID (by ref for a ref that is no secret's)
	err = listSecrets(ctx, km, src.API.HasConsumers(), func(s listedSecret) {
		inst, ok := InstanceOf(s.Name)
		if !ok {
			return // LIKE's _ matches any character; keep exact names only
		}
		id, ok := secretID(s.SecretRef)
		key := "id " + id
		if !ok {
			key = "ref " + s.SecretRef
		}
		if seen[key] {
			return // offset paging over a list that changed meanwhile
		}
		seen[key] = true
		if !ok {
			// a secret_ref that is no secret's URL (…/payload, another
			// host): named, never requested, and the project still audited
			bad = append(bad, fmt.Sprintf("secret %q has a secret_ref that is not a secret's URL (%s): not audited", s.Name, s.SecretRef))
			return
		}
		sec := Secret{ID: id, Ref: s.SecretRef, InstanceID: inst, ProjectID: project, CreatorID: s.CreatorID,
			Type: s.SecretType, Status: s.Status, Created: s.Created}
		if src.API.HasConsumers() {
			sec.Consumers = append([]Consumer{}, s.Consumers...) // [] read, nil not asked
		}
		if !s.Expiration.IsZero() {
			e := s.Expiration
			sec.Expiration = &e
		}
		out = append(out, sec)
	})
	if gophercloud.ResponseCodeIs(err, http.StatusForbidden) {
		return nil, nil, fmt.Errorf("Barbican refuses to list its secrets (403): the caller needs a role there that may list secrets (admin, creator or observer under Barbican's default policy before 2026.1; reader or member from 2026.1)")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("listing secrets: %v", oneLine(err))
	}
	return out, bad, nil
}

// listedSecret is a listed secret and, at key-manager API 1.1, its
// consumers (the list carries them: no request per secret).
type listedSecret struct {
	secrets.Secret
	Consumers []Consumer `json:"consumers"`
}

// UnmarshalJSON: secrets.Secret has its own, which would swallow the
// consumers.
func (l *listedSecret) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &l.Secret); err != nil {
		return err
	}
	var c struct {
		Consumers []Consumer `json:"consumers"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return err
	}
	l.Consumers = c.Consumers
	return nil
}

// listSecrets asks for the vTPM-named secrets page by page, each page's
// URL built here with the name filter; consumers: ask for API 1.1, whose
// list holds each secret's consumers. Barbican's next link ends the list
// when it is absent, and gives the next page's offset when present; the
// link itself is never followed: before the 2025 fix (Zed … 2025.1) it
// drops every filter but limit and offset, so it would list all of the
// project's secrets. A page's length says nothing: a deployment's
// max_limit_paging may cap pages below the limit asked for.
func listSecrets(ctx context.Context, km *gophercloud.ServiceClient, consumers bool, each func(listedSecret)) error {
	var opts *gophercloud.RequestOpts
	if consumers {
		opts = &gophercloud.RequestOpts{MoreHeaders: map[string]string{versionHeader: "key-manager " + ConsumersMicroversion}}
	}
	ctx = paging.Guard(ctx, "secret list")
	base := km.ServiceURL("secrets")
	refs := map[string]bool{}
	offset := 0
	for page := 0; ; page++ {
		if page >= paging.MaxPages { // the transport's guard too; this holds without it
			return &paging.Error{Msg: fmt.Sprintf("secret list: more than %d pages; stopped (a server that never ends its list?)", paging.MaxPages)}
		}
		q := url.Values{"name": {NamePrefix + "%"}, "limit": {strconv.Itoa(secretPage)}, "offset": {strconv.Itoa(offset)}}
		var body struct {
			Secrets []listedSecret `json:"secrets"`
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

// readACLs reads the ACL of each secret (of src.ACLInstances only, when
// non-nil), every project's in one pool of src.Limit, each with its
// project's client. A failed read (after the transport's retries) is
// this secret's problem, reported on it; the rest is audited.
func readACLs(ctx context.Context, src Sources, out []Secret, rep *reporter) {
	var idx []int
	for i := range out {
		if src.ACLInstances == nil || src.ACLInstances[out[i].InstanceID] {
			idx = append(idx, i)
		}
	}
	rep.count(PhaseACLs, len(idx))
	unread := parallel.Do(ctx, len(idx), src.Limit, func(ctx context.Context, j int) error {
		defer rep.one()
		s := &out[idx[j]]
		km, err := src.KeyManager(ctx, s.ProjectID)
		if err != nil { // the list had it; a cancelled run may not
			s.ACLError = oneLine(err)
			return nil
		}
		acl, err := acls.GetSecretACL(ctx, km, s.ID).Extract()
		if err != nil {
			s.ACLError = oneLine(err)
			s.ACLRefused = gophercloud.ResponseCodeIs(err, http.StatusForbidden)
			return nil
		}
		pa := true // no ACL row: Barbican forces project access on
		if r, ok := (*acl)["read"]; ok {
			pa = r.ProjectAccess
		}
		s.ProjectAccess = &pa
		return nil
	})
	for j, err := range unread { // never asked: the run was cancelled first
		if err != nil {
			out[idx[j]].ACLError = err.Error()
		}
	}
}
