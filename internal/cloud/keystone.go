package cloud

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/utils"

	"github.com/vtpmctl/vtpmctl/internal/paging"
)

// authenticate is openstack.Authenticate (one version discovery GET, none
// when auth_url names /v3, then one token POST) that also returns the
// Keystone v3 endpoint it chose, so rescoping can skip the discovery. ""
// when Keystone offers no v3.
func authenticate(ctx context.Context, pc *gophercloud.ProviderClient, ao gophercloud.AuthOptions) (string, error) {
	v3 := &utils.Version{ID: "v3", Priority: 30, Suffix: "/v3/"}
	chosen, endpoint, err := utils.ChooseVersion(ctx, pc, []*utils.Version{{ID: "v2.0", Priority: 20, Suffix: "/v2.0/"}, v3})
	if err != nil {
		return "", err
	}
	if chosen != v3 {
		return "", openstack.Authenticate(ctx, pc, ao)
	}
	if err := useIdentityV3(pc, endpoint); err != nil {
		return "", err
	}
	return endpoint, openstack.AuthenticateV3(ctx, pc, &ao, gophercloud.EndpointOpts{})
}

// useIdentityV3 points a provider client at a discovered v3 endpoint:
// AuthenticateV3 (and its re-authentication after a 401) posts to
// IdentityBase + "v3/".
func useIdentityV3(pc *gophercloud.ProviderClient, endpoint string) error {
	base, err := utils.BaseEndpoint(endpoint)
	if err != nil {
		return err
	}
	pc.IdentityEndpoint = endpoint
	pc.IdentityBase = gophercloud.NormalizeURL(base)
	return nil
}

// rescope authenticates a new provider client over hc with ao: straight
// to the v3 endpoint when one was discovered (one POST), by discovery
// otherwise.
func rescope(ctx context.Context, hc http.Client, ua gophercloud.UserAgent, v3 string, ao gophercloud.AuthOptions) (*gophercloud.ProviderClient, error) {
	if v3 == "" {
		pc, err := openstack.NewClient(ao.IdentityEndpoint)
		if err != nil {
			return nil, err
		}
		pc.HTTPClient, pc.UserAgent = hc, ua
		return pc, openstack.Authenticate(ctx, pc, ao)
	}
	pc, err := openstack.NewClient(v3)
	if err != nil {
		return nil, err
	}
	pc.HTTPClient, pc.UserAgent = hc, ua
	return pc, openstack.AuthenticateV3(ctx, pc, &ao, gophercloud.EndpointOpts{})
}

// ProjectIDs resolves project names or IDs with Keystone (admin, or a
// reader of those projects).
func ProjectIDs(ctx context.Context, ks *gophercloud.ServiceClient, refs []string) ([]string, error) {
	out := make([]string, 0, len(refs))
	for _, ref := range refs {
		if p, err := projects.Get(ctx, ks, ref).Extract(); err == nil {
			out = append(out, p.ID)
			continue
		} else if !gophercloud.ResponseCodeIs(err, http.StatusNotFound) && !gophercloud.ResponseCodeIs(err, http.StatusForbidden) {
			return nil, fmt.Errorf("project %s: %w", ref, err)
		}
		pages, err := projects.List(ks, projects.ListOpts{Name: ref}).AllPages(paging.Guard(ctx, "project list"))
		if err != nil {
			return nil, fmt.Errorf("project %s: %w", ref, err)
		}
		ps, err := projects.ExtractProjects(pages)
		if err != nil {
			return nil, err
		}
		switch len(ps) {
		case 0:
			return nil, &ConfigError{Msg: fmt.Sprintf("no project named or with ID %q", ref)}
		case 1:
			out = append(out, ps[0].ID)
		default:
			return nil, &ConfigError{Msg: fmt.Sprintf("%d projects are named %q (in different domains); use an ID", len(ps), ref)}
		}
	}
	return out, nil
}

// tokenOnly is an authentication with its token and expiry only.
type tokenOnly struct {
	id  string
	exp time.Time
}

func (t tokenOnly) ExtractTokenID() (string, error) { return t.id, nil }
func (t tokenOnly) TokenExpiry() time.Time          { return t.exp }

// KeepTokenOnly drops from pc what its authentication returned but the
// token and its expiry: a scoped token's body holds the cloud's whole
// catalog (~17 KB), which a client built for one service never reads
// again; 85 MB at 5,000 projects' tokens. A re-authentication (401)
// reads a new one.
func KeepTokenOnly(pc *gophercloud.ProviderClient) {
	_ = pc.SetTokenAndAuthResult(tokenOnly{id: pc.Token(), exp: pc.TokenExpiry()})
	pc.EndpointLocator = func(gophercloud.EndpointOpts) (string, error) {
		return "", errors.New("this client keeps its token only, not the catalog")
	}
}
