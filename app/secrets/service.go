package secrets

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/app/inventory"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/parallel"
	"github.com/vtpmctl/vtpmctl/openstack/barbican"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
)

// The audit's defaults: the command's and every other caller's (report,
// plan verify), so all of them audit alike.
const (
	DefaultConcurrency    = 8
	DefaultServiceProject = "service"
)

// AuditRequest is one secrets audit (or the gathering secrets protect
// plans from).
type AuditRequest struct {
	// Release is the evidence the caller has; the cloud's compute API is
	// asked when it is not pinned.
	Release nova.ReleaseEvidence
	// Resolved, when set, is the release the caller already settled (and
	// listed Inventory with): no second detection.
	Resolved *nova.ResolvedRelease
	// Projects (names or IDs) to audit; none and not AllProjects: the
	// token's own project.
	Projects    []string
	AllProjects bool
	// ServiceProject (name or ID) holds deployment-mode secrets (empty:
	// DefaultServiceProject); ServiceUser (an ID) owns them, when the
	// caller knows it.
	ServiceProject string
	ServiceUser    string
	Concurrency    int // projects and lookups at once; < 1: DefaultConcurrency
	ReadACLs       bool
	// ACLInstances, when non-nil, limits ACL reads to these servers'
	// secrets (plan verify: the matched guests only).
	ACLInstances map[string]bool
	// Inventory, when set, is every project's servers already listed
	// (one server list for several audits).
	Inventory *nova.Inventory
	// NeedConsumers: a key manager without consumers is an error before
	// anything else is asked (secrets protect).
	NeedConsumers bool
	// Stream: the result does not hold its guests' results; they are
	// audited again each time they are walked (vtpmsecret.AuditStreamed:
	// for a caller that writes them once, in JSON or YAML).
	Stream bool
	// Progress, when set, is told how far each phase of the gathering is
	// (requests done of those known), one call at a time; the caller
	// draws it (the service knows no terminal).
	Progress func(Progress)
}

// Audited is what AuditSecrets found: the result, the facts it came
// from, and what a caller needs to act on it.
type Audited struct {
	Result vtpmsecret.Result
	Facts  vtpmsecret.Facts
	// Release is how the release was settled; the command prints its
	// warning (the service knows no terminal).
	Release nova.ResolvedRelease `json:"-"`
	Cloud   string
	// SecretsURL is the key manager's own secrets endpoint, ending in /.
	SecretsURL string
	// KeyManager gives the client scoped to a project, the one the audit
	// used (protect writes with the same tokens).
	KeyManager KeyManagers `json:"-"`
}

// Origin is where the audit read its secrets (what a cleanup plan's
// deletes name).
func (a Audited) Origin() vtpmsecret.Origin {
	return vtpmsecret.Origin{Cloud: a.Cloud, SecretsURL: a.SecretsURL}
}

// ScopeError: the audit's scope cannot be set up (every project needs
// Keystone's project list, which needs the admin role). The caller names
// its own option for every project.
type ScopeError struct{ Err error }

func (e *ScopeError) Error() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	return "auditing every project needs to list Keystone projects, which needs the admin role"
}

func (e *ScopeError) Unwrap() error { return e.Err }

// ProjectRefError: a project named in the request is not one project.
type ProjectRefError struct {
	Ref     string
	Matches int
}

func (e *ProjectRefError) Error() string {
	if e.Matches == 0 {
		return fmt.Sprintf("no project named or with ID %q", e.Ref)
	}
	return fmt.Sprintf("%d projects are named %q; use an ID", e.Matches, e.Ref)
}

// ConsumersUnavailableError: NeedConsumers, and the key manager has none.
type ConsumersUnavailableError struct{ API vtpmsecret.API }

func (e *ConsumersUnavailableError) Error() string { return vtpmsecret.ConsumersUnavailable(e.API) }

// AuditSecrets settles the release, reads the key manager's API once,
// resolves the projects, gathers and audits. Progress goes to
// req.Progress or, without it, to whatever parallel.WithProgress the
// caller put on ctx (one tick per project, per ACL, per user).
func AuditSecrets(ctx context.Context, sess *cloud.Session, req AuditRequest) (Audited, error) {
	if req.Progress != nil {
		ctx = parallel.WithProgress(ctx, nil) // one progress, not two
	}
	out := Audited{Cloud: sess.CloudName}
	computeClient, err := sess.Compute()
	if err != nil {
		return out, err
	}
	km, err := sess.KeyManager()
	if err != nil {
		return out, err
	}
	var imageClient, volumeClient *gophercloud.ServiceClient
	if req.Inventory == nil {
		if imageClient, err = sess.Image(); err != nil {
			return out, err
		}
		if volumeClient, err = compute.OptionalVolumes(sess.BlockStorage()); err != nil {
			return out, err
		}
	}
	if req.Resolved != nil {
		out.Release = *req.Resolved
	} else if out.Release, err = compute.ResolveRelease(ctx, computeClient, req.Release, false); err != nil {
		return out, err
	}
	// The key manager's API and the scope are two questions to two
	// services: asked at once, one round trip before the gathering, not
	// two. The requests sent are the same as one after the other: a
	// failed API read is only noted, unless the caller needs consumers,
	// and then nothing more is asked before it is known.
	type scopeRead struct {
		sc  scope
		err error
	}
	scopeCh := make(chan scopeRead, 1)
	askScope := func() {
		sc, err := resolveScope(ctx, sess, req)
		scopeCh <- scopeRead{sc, err}
	}
	if !req.NeedConsumers {
		go askScope()
	}
	api, apiErr := barbican.DetectAPI(ctx, km)
	if apiErr != nil { // on one line, as a result carries it
		apiErr = errors.New(oneLine(apiErr))
	}
	switch {
	case req.NeedConsumers && apiErr != nil:
		return out, apiErr
	case req.NeedConsumers && !api.HasConsumers():
		return out, &ConsumersUnavailableError{API: api}
	case req.NeedConsumers:
		askScope()
	}
	scoped := <-scopeCh
	if scoped.err != nil {
		return out, scoped.err
	}
	sc := scoped.sc
	own, ks, names, projects := sc.own, sc.ks, sc.names, sc.projects
	allTenants := req.Inventory != nil || sc.admin && (req.AllProjects || len(projects) > 1 || projects[0] != own)
	// Projects named by an admin: Nova lists those projects' servers
	// only, not every project's (2,000 guests for the 100 asked about).
	var serverProjects []string
	if allTenants && req.Inventory == nil && !req.AllProjects {
		serverProjects = projects
	}
	limit := req.Concurrency
	if limit < 1 {
		limit = DefaultConcurrency
	}
	src := Sources{Compute: computeClient, Image: imageClient, Volumes: volumeClient, Identity: ks, Release: out.Release.Release, AllTenants: allTenants,
		Projects: projects, ServerProjects: serverProjects, ReadACLs: req.ReadACLs, ACLInstances: req.ACLInstances, API: api, Limit: limit,
		ServiceUserID: req.ServiceUser, ServiceProject: sc.service, ProjectNames: names, Inventory: req.Inventory,
		KeyManager: projectKeyManagers(sess, km, own), Progress: req.Progress}
	// A key manager the catalog lists under other regions too holds their
	// guests' secrets: an instance this region's Nova does not list may
	// be theirs. Where this region's servers are every project's, each
	// such region's are listed once, beside the gathering (nothing is
	// sent for a key manager of this region's alone).
	var regions <-chan []vtpmsecret.RegionServers
	if allTenants && serverProjects == nil {
		rctx, cancel := context.WithCancel(ctx)
		defer cancel()
		regions = otherRegions(rctx, sess)
	}
	facts, err := Gather(ctx, src)
	if err != nil {
		return out, err
	}
	if regions != nil {
		facts.Regions = <-regions
	}
	// The token's own project's servers are not every server a secret
	// there can belong to (a deployment-mode secret lives in Nova's
	// service project, its guest elsewhere): the inventory's scope gap
	// keeps CompleteServers false.
	facts.ProjectGaps = sc.gaps
	out.Facts, out.KeyManager = facts, src.KeyManager
	out.SecretsURL = strings.TrimRight(km.ResourceBaseURL(), "/") + "/secrets/"
	if req.Stream {
		out.Result = vtpmsecret.AuditStreamed(facts, time.Now())
	} else {
		out.Result = vtpmsecret.Audit(facts, time.Now())
	}
	// Projects named by an admin: their server lists cannot prove an
	// instance gone (its server may be another project's), but Nova can,
	// asked by UUID about those instances only, as the cleanup plan asks.
	if ids := vtpmsecret.UndeterminedInstances(out.Result); len(ids) > 0 && serverProjects != nil && sc.admin {
		vtpmsecret.SettleUndetermined(&out.Result, proveGone(ctx, sess, computeClient, ids, true, limit))
	}
	if apiErr != nil {
		out.Result.ConsumersNotRead = apiErr.Error()
	}
	pb := sess.PushBack()
	out.Result.PushBack = vtpmsecret.PushBack{Answers: pb.PushBacks, Concurrency: pb.Lowest, AtMost: sess.Concurrency()}
	if out.Release.Ambiguous() {
		out.Result.ReleaseContext = out.Release.Context()
	}
	return out, nil
}

// otherRegions lists the servers of every other region whose catalog
// lists the session's key-manager endpoint (cloud.SharedRegions), each
// region's once and all at once (inventory.ListIDs: IDs only), and sends
// them when all are in: none, with nothing sent, when the key manager is
// this region's alone. A region with no compute endpoint, a list that
// fails, or a catalog that cannot say which regions share the key
// manager is named in what it sends, never left out.
func otherRegions(ctx context.Context, sess *cloud.Session) <-chan []vtpmsecret.RegionServers {
	out := make(chan []vtpmsecret.RegionServers, 1)
	regions, err := sess.SharedRegions("key-manager")
	switch {
	case err != nil:
		out <- []vtpmsecret.RegionServers{{Err: oneLine(err)}}
		return out
	case len(regions) < 2:
		out <- nil
		return out
	}
	lists := make([]vtpmsecret.RegionServers, len(regions)-1)
	var wg sync.WaitGroup
	for i, r := range regions[1:] {
		lists[i].Region = r
		c, err := sess.ComputeIn(r)
		if err != nil {
			lists[i].Err = oneLine(err)
			continue
		}
		wg.Go(func() {
			ids, gaps, err := inventory.ListIDs(ctx, c)
			lists[i].Servers, lists[i].Gaps = ids, gaps
			if err != nil {
				lists[i].Err = oneLine(err)
			}
		})
	}
	go func() {
		wg.Wait()
		out <- lists
	}()
	return out
}
