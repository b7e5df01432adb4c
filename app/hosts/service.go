package hosts

import (
	"context"

	"github.com/vtpmctl/vtpmctl/app/inventory"
	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
)

// AuditRequest is one fleet audit (`hosts audit`).
type AuditRequest struct {
	// Release is the caller's pinned release and the request field it
	// fills; the cloud's compute API is asked when it is not pinned.
	Release nova.ReleaseEvidence
	// HostReports are `host check` reports, matched to hosts by service
	// host or hypervisor hostname (a report naming another host is a
	// finding, never that host's report; hostcheck.ReadReports reads
	// them).
	HostReports []hostcheck.Report
	// Inventory, when set, is every project's servers already listed.
	Inventory *nova.Inventory
}

// Audit settles the release, lists the fleet and every project's
// servers, and audits each host (admin).
func Audit(ctx context.Context, sess *cloud.Session, req AuditRequest) (fleet.Result, error) {
	res, err := Resolve(ctx, sess, req.Release)
	if err != nil {
		return fleet.Result{}, err
	}
	c, err := ReadCloud(ctx, sess, res, req.Inventory)
	if err != nil {
		return fleet.Result{}, err
	}
	return fleet.AuditCloud(c, req.HostReports), nil
}

// Resolve settles the release from the evidence, asking the cloud's
// compute API (its version document) when nothing pins it.
func Resolve(ctx context.Context, sess *cloud.Session, ev nova.ReleaseEvidence) (nova.ResolvedRelease, error) {
	cc, err := sess.Compute()
	if err != nil {
		return nova.ResolvedRelease{}, err
	}
	return compute.ResolveRelease(ctx, cc, ev, false)
}

// ReadCloud lists the fleet (List) and, unless given, every project's
// servers with the resolved release's rules: what the fleet audit and
// the upgrade check read from the APIs, listed once.
func ReadCloud(ctx context.Context, sess *cloud.Session, res nova.ResolvedRelease, inv *nova.Inventory) (fleet.Cloud, error) {
	c := fleet.Cloud{Release: res}
	cc, err := sess.Compute()
	if err != nil {
		return c, err
	}
	pl, err := sess.Placement()
	if err != nil {
		return c, err
	}
	if c.Hosts, err = List(ctx, cc, pl); err != nil {
		return c, err
	}
	if inv != nil {
		c.Inventory = *inv
		return c, nil
	}
	ic, err := sess.Image()
	if err != nil {
		return c, err
	}
	// Volume-backed guests are decided from their boot volume (one list).
	vc, err := compute.OptionalVolumes(sess.BlockStorage())
	if err != nil {
		return c, err
	}
	c.Inventory, err = inventory.List(ctx, cc, ic, res.Release, inventory.Opts{AllTenants: true, Volumes: vc})
	return c, err
}
