package secrets

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/openstack/barbican"
)

// projectSecrets lists a project's vTPM secrets, each once (their ACLs
// are read after, each its own task: readACL); why, when
// not nil, is why the project cannot be audited.
func projectSecrets(ctx context.Context, src Sources, project string) (secs []vtpmsecret.Secret, bad []string, why *vtpmsecret.NotAuditable) {
	km, err := src.KeyManager(ctx, project)
	switch {
	case gophercloud.ResponseCodeIs(err, http.StatusUnauthorized):
		return nil, nil, &vtpmsecret.NotAuditable{Kind: vtpmsecret.TokenRefused}
	case err != nil:
		return nil, nil, &vtpmsecret.NotAuditable{Kind: vtpmsecret.TokenFailed, Detail: oneLine(err)}
	}
	seen := map[string]bool{} // by secret ID (by ref for a ref that is no secret's)
	// A project's secrets share a few creators, one type and one status:
	// one string each, not one per secret (~100 B a secret at 500,000).
	same := map[string]string{}
	shared := func(v string) string {
		if o, ok := same[v]; ok {
			return o
		}
		same[v] = v
		return v
	}
	err = barbican.ListSecrets(ctx, km, vtpmsecret.NamePrefix, src.API.HasConsumers(), func(s barbican.ListedSecret) {
		inst, ok := vtpmsecret.InstanceOf(s.Name)
		if !ok {
			return // LIKE's _ matches any character; keep exact names only
		}
		id, ok := s.ID()
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
		// inst is cut from the name: a copy lets the name go
		sec := vtpmsecret.Secret{ID: id, Ref: s.SecretRef, InstanceID: strings.Clone(inst), ProjectID: project, CreatorID: shared(s.CreatorID),
			Type: shared(s.SecretType), Status: shared(s.Status), Created: s.Created}
		if src.API.HasConsumers() {
			sec.Consumers = append([]vtpmsecret.Consumer{}, s.Consumers...) // [] read, nil not asked
		}
		if !s.Expiration.IsZero() {
			e := s.Expiration
			sec.Expiration = &e
		}
		secs = append(secs, sec)
	})
	switch {
	case gophercloud.ResponseCodeIs(err, http.StatusForbidden):
		return nil, nil, &vtpmsecret.NotAuditable{Kind: vtpmsecret.ListRefused}
	case err != nil:
		return nil, nil, &vtpmsecret.NotAuditable{Kind: vtpmsecret.ListFailed, Detail: oneLine(err)}
	}
	return secs, bad, nil
}

// readACL reads one secret's ACL with its project's client. A failed
// read (after the transport's retries) is this secret's problem,
// reported on it; the rest is audited. A run cancelled first leaves the
// cancellation as its error.
func readACL(ctx context.Context, src Sources, s *vtpmsecret.Secret) {
	km, err := src.KeyManager(ctx, s.ProjectID)
	if err != nil { // the list had it; a cancelled run may not
		s.ACLError = oneLine(err)
		return
	}
	pa, err := barbican.ProjectAccess(ctx, km, s.ID)
	if err != nil {
		s.ACLError = oneLine(err)
		s.ACLRefused = gophercloud.ResponseCodeIs(err, http.StatusForbidden)
		return
	}
	s.ProjectAccess = accessOf[pa]
}

// accessOf: two answers, two pointers (not one allocation per secret).
var accessOf = map[bool]*bool{true: new(true), false: new(false)}

// wantsACL says whether the audit reads this secret's ACL.
func (src Sources) wantsACL(s vtpmsecret.Secret) bool {
	return src.ReadACLs && (src.ACLInstances == nil || src.ACLInstances[s.InstanceID])
}
