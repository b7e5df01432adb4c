package report

import (
	"context"
	"fmt"

	"github.com/vtpmctl/vtpmctl/app/hosts"
	"github.com/vtpmctl/vtpmctl/app/secrets"
	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/reportpage"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
)

// Request is one report gathered from a cloud.
type Request struct {
	// Release is the caller's pinned release and its flag's name.
	Release nova.ReleaseEvidence
	// UpgradeTo, when known, adds the upgrade check to that release.
	UpgradeTo nova.Release
	// HostReports are `host check` reports: a section of their own, and
	// matched to the fleet's hosts.
	HostReports []hostcheck.Report
	// Progress, when set, is told how far the secrets audit's gathering
	// is (secrets.AuditRequest.Progress: requests done of those known,
	// one call at a time); the caller draws it.
	Progress func(secrets.Progress)
}

// Build runs the fleet audit, the secrets audit and, with UpgradeTo, the
// upgrade check on one session, with one release detection, one fleet
// list and one server list for all of them (admin: every project). An
// upgrade target older than the cloud is refused before any list
// (fleet.OlderTargetError).
func Build(ctx context.Context, sess *cloud.Session, req Request) (reportpage.Inputs, error) {
	out := reportpage.Inputs{Cloud: sess.CloudName, Hosts: req.HostReports}
	cc, err := sess.Compute()
	if err != nil {
		return out, err
	}
	if out.Resolved, err = compute.ResolveRelease(ctx, cc, req.Release, false); err != nil {
		return out, err
	}
	if req.UpgradeTo != nova.ReleaseUnknown {
		if _, err := fleet.UpgradeStart(out.Resolved, req.UpgradeTo); err != nil {
			return out, err
		}
	}
	c, err := hosts.ReadCloud(ctx, sess, out.Resolved, nil)
	if err != nil {
		return out, fmt.Errorf("hosts audit: %w", err)
	}
	f := fleet.AuditCloud(c, req.HostReports)
	out.Fleet = &f
	_, admin, err := sess.TokenProject()
	if err != nil {
		return out, err
	}
	// The secrets audit's own defaults; the report has none of its flags,
	// so hints name what is missing, not a flag (empty Flags).
	sec, err := secrets.AuditSecrets(ctx, sess, secrets.AuditRequest{Release: req.Release, Resolved: &out.Resolved,
		AllProjects: admin, ServiceProject: secrets.DefaultServiceProject, Concurrency: secrets.DefaultConcurrency,
		ReadACLs: true, Inventory: &c.Inventory, Progress: req.Progress})
	if err != nil {
		return out, fmt.Errorf("secrets audit: %w", err)
	}
	out.Secrets = &sec.Result
	if req.UpgradeTo != nova.ReleaseUnknown {
		u, err := fleet.UpgradeCloud(c, req.UpgradeTo)
		if err != nil {
			return out, err
		}
		out.Upgrade = &u
	}
	return out, nil
}
