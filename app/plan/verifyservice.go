package plan

import (
	"context"
	"sort"
	"strings"

	"github.com/vtpmctl/vtpmctl/app/hosts"
	"github.com/vtpmctl/vtpmctl/app/inventory"
	"github.com/vtpmctl/vtpmctl/app/secrets"

	"github.com/vtpmctl/vtpmctl/domain/advice"
	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/migration"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/completeness"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
)

// VerifyRequest is one plan verify against a cloud.
type VerifyRequest struct {
	Plan *migration.Plan
	// Release is the caller's evidence (its flag and the flag's name).
	Release nova.ReleaseEvidence
	Rules   []migration.MatchRule
	// Reports: host check reports (DOMAIN-TPM); none: not checked.
	Reports   []hostcheck.Report
	NoSecrets bool
	NoACLs    bool
	// ServiceProject holds deployment-mode secrets (name or ID); empty:
	// secrets.DefaultServiceProject.
	ServiceProject string
	// Words spell the options a not_checked reason or a remedy names
	// (migration.Options: the one that turned a check off, the one that
	// ties a VM to a server) and the commands; nil: the reasons say what
	// is missing, naming no option.
	Words advice.Words
	// Progress, when set, is told how far the secrets audit's gathering
	// is (secrets.AuditRequest.Progress: requests done of those known,
	// one call at a time); the caller draws it.
	Progress func(secrets.Progress)
}

// VerifyCutover lists the cloud's servers once, ties them to the plan's
// VMs, reads the host traits and audits the matched guests' secrets (with
// the secrets audit's defaults), then Verify. It returns how the release
// was settled, for the caller's warning. A check the cloud will not
// allow is a reason in not_checked, not an error.
func VerifyCutover(ctx context.Context, sess *cloud.Session, req VerifyRequest) (migration.VerifyResult, nova.ResolvedRelease, error) {
	computeClient, err := sess.Compute()
	if err != nil {
		return migration.VerifyResult{}, nova.ResolvedRelease{}, err
	}
	imageClient, err := sess.Image()
	if err != nil {
		return migration.VerifyResult{}, nova.ResolvedRelease{}, err
	}
	// Volume-backed servers are decided, and their FIRMWARE and
	// SECURE-BOOT checked, from their boot volume (nil: no block storage).
	volumeClient, err := compute.OptionalVolumes(sess.BlockStorage())
	if err != nil {
		return migration.VerifyResult{}, nova.ResolvedRelease{}, err
	}
	rel, err := compute.ResolveRelease(ctx, computeClient, req.Release, false)
	if err != nil {
		return migration.VerifyResult{}, rel, err
	}
	_, admin, err := sess.TokenProject()
	if err != nil {
		return migration.VerifyResult{}, rel, err
	}
	// The hosts' traits are read beside the servers: neither needs the
	// other.
	type traits struct {
		byHost map[string][]string
		why    string
	}
	hostsRead := make(chan traits, 1)
	go func() {
		t, why := hostTraits(ctx, sess, admin)
		hostsRead <- traits{t, why}
	}()
	// KeepServers: MatchServers and Verify read inv.Servers.
	inv, err := inventory.List(ctx, computeClient, imageClient, rel.Release, inventory.Opts{AllTenants: admin, KeepServers: true, Volumes: volumeClient})
	ht := <-hostsRead
	if err != nil {
		return migration.VerifyResult{}, rel, err
	}
	in := migration.VerifyInput{Inventory: inv, Release: rel.Release, Matches: migration.MatchServers(req.Plan, inv, req.Rules), Reports: fleet.ReportIndex(req.Reports), NotChecked: map[string]string{}, Words: req.Words}
	if len(req.Reports) == 0 {
		in.NotChecked[migration.CheckDomainTPM] = "no " + or(migration.Spell(req.Words, migration.OptionHostReports), "host check reports given")
	}
	var unread completeness.Gaps
	in.HostTraits, in.NotChecked[migration.CheckHostTraits] = ht.byHost, ht.why
	if in.HostTraits == nil && admin {
		unread.Add(completeness.Failed, "%s not checked: %s", migration.CheckHostTraits, in.NotChecked[migration.CheckHostTraits])
	}
	var secretGaps completeness.Gaps
	in.Secrets, in.NotChecked[migration.CheckSecret], secretGaps = verifySecrets(ctx, sess, req, rel, inv, in.Matches, admin)
	unread = append(unread, secretGaps...)
	if req.NoACLs && !req.NoSecrets {
		in.NotChecked[migration.CheckSecretACL] = or(migration.Spell(req.Words, migration.OptionNoACLs), "ACL reads turned off")
	}
	for k, v := range in.NotChecked {
		if v == "" {
			delete(in.NotChecked, k)
		}
	}
	r := migration.Verify(req.Plan, in)
	// What a failed read left unchecked fails the run, by name: a skip
	// that stands for a failed request is no verdict.
	r.Incomplete = append(append(r.Incomplete, unread...), inv.ServerGaps.Failures()...)
	return r, rel, nil
}

// or is option when the caller spells one, else what stands in its
// place.
func or(option, otherwise string) string {
	if option != "" {
		return option
	}
	return otherwise
}

// reason is an error as a not_checked reason: one line, no credential,
// no control character.
func reason(err error) string {
	return output.Sanitize(cloud.Scrub(strings.Join(strings.Fields(err.Error()), " ")))
}

// hostTraits reads each service host's TPM traits (the fleet audit's
// lists: one Placement list per trait).
func hostTraits(ctx context.Context, sess *cloud.Session, admin bool) (map[string][]string, string) {
	if !admin {
		return nil, "needs an admin's credentials (hypervisor list and Placement)"
	}
	computeClient, err := sess.Compute()
	if err != nil {
		return nil, reason(err)
	}
	pl, err := sess.Placement()
	if err != nil {
		return nil, reason(err)
	}
	listed, err := hosts.List(ctx, computeClient, pl)
	if err != nil {
		return nil, reason(err)
	}
	out := map[string][]string{}
	for _, h := range listed {
		out[h.Host] = append(out[h.Host], h.Traits...)
	}
	return out, ""
}

// verifySecrets runs the secrets audit over the projects of the matched
// vTPM servers only (and Nova's service project for deployment mode),
// reading only the matched guests' ACLs.
// gaps are the reads that failed: the audit, a project it could not
// read, a secret's ACL.
func verifySecrets(ctx context.Context, sess *cloud.Session, req VerifyRequest, rel nova.ResolvedRelease, inv nova.Inventory, matches map[int]migration.Match, admin bool) (map[string]vtpmsecret.GuestResult, string, completeness.Gaps) {
	var gaps completeness.Gaps
	if req.NoSecrets {
		return nil, or(migration.Spell(req.Words, migration.OptionNoSecrets), "secret check turned off"), nil
	}
	if _, err := sess.KeyManager(); err != nil {
		return nil, reason(err), nil // no key manager in the catalog: nothing to read
	}
	guests := map[string]nova.VTPMGuest{}
	for _, g := range inv.Guests.All() {
		guests[g.ServerID] = g
	}
	projects := map[string]bool{}
	acl := map[string]bool{}
	deployment := false
	for _, m := range matches {
		if g, ok := guests[m.ServerIDs[0]]; ok {
			projects[g.ProjectID] = true
			acl[g.ServerID] = true
			deployment = deployment || g.Mode == nova.SecretDeployment
		}
	}
	if len(projects) == 0 {
		return map[string]vtpmsecret.GuestResult{}, "", nil
	}
	service := or(req.ServiceProject, secrets.DefaultServiceProject)
	ar := secrets.AuditRequest{Resolved: &rel, ServiceProject: service, Concurrency: secrets.DefaultConcurrency,
		ReadACLs: !req.NoACLs, ACLInstances: acl, Inventory: &inv,
		Progress: req.Progress}
	if admin { // a member sees, and audits, the token's own project only
		for p := range projects {
			ar.Projects = append(ar.Projects, p)
		}
		if deployment {
			ar.Projects = append(ar.Projects, service)
		}
		sort.Strings(ar.Projects)
	}
	audit, err := secrets.AuditSecrets(ctx, sess, ar)
	if err != nil {
		gaps.Add(completeness.Failed, "%s not checked: %s", migration.CheckSecret, reason(err))
		return nil, reason(err), gaps
	}
	// the one hint plan verify has a flag for
	audit.Result.Name(func(h vtpmsecret.Hint) string {
		if h == vtpmsecret.HintServiceProject {
			return migration.Spell(req.Words, migration.OptionServiceProject)
		}
		return ""
	})
	out := map[string]vtpmsecret.GuestResult{}
	for _, g := range audit.Result.Guests {
		out[g.ServerID] = g
	}
	projectIDs := make([]string, 0, len(audit.Result.NotAuditable))
	for p := range audit.Result.NotAuditable {
		projectIDs = append(projectIDs, p)
	}
	sort.Strings(projectIDs)
	for _, p := range projectIDs {
		gaps.Add(completeness.Failed, "the secrets of project %s could not be read: %s", p, audit.Result.NotAuditable[p])
	}
	for _, g := range audit.Result.Incomplete.Failures() {
		if g.Kind == completeness.Failed {
			gaps = append(gaps, g) // single reads (ACLs, users, roles)
		}
	}
	return out, "", gaps
}
