package fleet

import (
	"context"
	"fmt"

	"github.com/vtpmctl/vtpmctl/app/inventory"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
)

// AuditRequest is one fleet audit (`hosts audit`).
type AuditRequest struct {
	// Release is the caller's pinned release and its flag's name; the
	// cloud's compute API is asked when it is not pinned.
	Release nova.ReleaseEvidence
	// HostReports are `host check` reports, matched to hosts by service
	// host or hypervisor hostname (matchReports: a report naming another
	// host is a finding, never that host's report; hostcheck.ReadReports
	// reads them).
	HostReports []hostcheck.Report
	// Inventory, when set, is every project's servers already listed.
	Inventory *nova.Inventory
}

// UpgradeRequest is one `upgrade check`: the scheduler's new release,
// and the evidence of the current one.
type UpgradeRequest struct {
	To   nova.Release
	From nova.ReleaseEvidence
}

// Cloud is what the fleet audit and the upgrade check read from the
// APIs, listed once: the release, every hypervisor with its TPM traits,
// every project's vTPM guests.
type Cloud struct {
	Release   nova.ResolvedRelease
	Hosts     []Host
	Inventory nova.Inventory
}

// Audit settles the release, lists the fleet and every project's
// servers, and audits each host (admin).
func Audit(ctx context.Context, sess *cloud.Session, req AuditRequest) (Result, error) {
	res, err := resolve(ctx, sess, req.Release)
	if err != nil {
		return Result{}, err
	}
	c, err := ReadCloud(ctx, sess, res, req.Inventory)
	if err != nil {
		return Result{}, err
	}
	return AuditCloud(c, req.HostReports), nil
}

// CheckUpgrade settles the current release, refuses a target older than
// it before anything is listed, then says what the upgrade does.
func CheckUpgrade(ctx context.Context, sess *cloud.Session, req UpgradeRequest) (UpgradeResult, error) {
	res, err := resolve(ctx, sess, req.From)
	if err != nil {
		return UpgradeResult{}, err
	}
	from, err := UpgradeStart(res, req.To)
	if err != nil {
		return UpgradeResult{}, err
	}
	// The guests as the release the upgrade starts from sees them.
	listAs := res
	listAs.Release = from
	c, err := ReadCloud(ctx, sess, listAs, nil)
	if err != nil {
		return UpgradeResult{}, err
	}
	c.Release = res
	return UpgradeCloud(c, req.To)
}

func resolve(ctx context.Context, sess *cloud.Session, ev nova.ReleaseEvidence) (nova.ResolvedRelease, error) {
	cc, err := sess.Compute()
	if err != nil {
		return nova.ResolvedRelease{}, err
	}
	return compute.ResolveRelease(ctx, cc, ev, false)
}

// ReadCloud lists the fleet (ListHosts) and, unless given, every
// project's servers with the resolved release's rules.
func ReadCloud(ctx context.Context, sess *cloud.Session, res nova.ResolvedRelease, inv *nova.Inventory) (Cloud, error) {
	c := Cloud{Release: res}
	cc, err := sess.Compute()
	if err != nil {
		return c, err
	}
	pl, err := sess.Placement()
	if err != nil {
		return c, err
	}
	if c.Hosts, err = ListHosts(ctx, cc, pl); err != nil {
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

// AuditCloud is the fleet audit of what ReadCloud listed (pure).
func AuditCloud(c Cloud, hostReports []hostcheck.Report) Result {
	rel := c.Release.Release
	match := matchReports(c.Hosts, hostReports)
	guests, why := withHostEvidence(c.Inventory, match.index)
	reps, sum := AuditHosts(rel, c.Hosts, match.index, guests)
	match.addFindings(reps, &sum)
	why.mark(reps)
	f := NewResult(rel, c.Hosts, reps, sum)
	f.ReleaseContext = c.Release.Context()
	f.Resolved = c.Release
	return *f
}

// UpgradeCloud is the upgrade check of what ReadCloud listed (pure but
// for the refusal of a target older than the cloud).
func UpgradeCloud(c Cloud, to nova.Release) (UpgradeResult, error) {
	from, err := UpgradeStart(c.Release, to)
	if err != nil {
		return UpgradeResult{}, err
	}
	u := UpgradeImpact(from, to, c.Hosts, c.Inventory.Guests)
	u.From = c.Release.Label() // "2025.1 or 2025.2" while the cloud leaves it open
	u.Resolved = c.Release
	return u, nil
}

// OlderTargetError: the upgrade's target is older than the release the
// cloud runs. The command names its flag (--to, --upgrade-to).
type OlderTargetError struct{ To, Cloud nova.Release }

func (e *OlderTargetError) Error() string {
	return fmt.Sprintf("%s is older than the cloud's %s", e.To, e.Cloud)
}

// UpgradeStart is the one answer to where an upgrade to `to` starts:
// the resolved release, or `to` itself when it is one of the releases
// the cloud's evidence leaves open (nova.ResolvedRelease.UpgradeFrom).
// `upgrade check --to` and `report --upgrade-to` both ask it.
func UpgradeStart(res nova.ResolvedRelease, to nova.Release) (nova.Release, error) {
	from, ok := res.UpgradeFrom(to)
	if !ok {
		return from, &OlderTargetError{To: to, Cloud: from}
	}
	return from, nil
}

// ReportIndex files host check reports by host and by hypervisor
// hostname, the two names the APIs know a host by, without the
// hypervisors: the fleet audit matches reports to them (matchReports).
// A service host is only ever its own report's key: a libvirt host name
// that is another report's service host, or that two reports share (two
// nova-computes on one machine), indexes nothing.
func ReportIndex(reps []hostcheck.Report) map[string]hostcheck.Report {
	out := map[string]hostcheck.Report{}
	for _, r := range reps {
		out[r.Host] = r
	}
	for j, names := range reportNames(reps) {
		for _, n := range names[1:] {
			if _, taken := out[n]; !taken {
				out[n] = reps[j]
			}
		}
	}
	return out
}

// withHostEvidence adds to the inventory's guests the servers the APIs
// left undecided (image gone, boot volume unreadable, …) or decided "no
// vTPM" only from properties as they are now (unconfirmed: a boot volume
// or image untagged since boot) whose host's check report shows a vTPM
// domain of theirs: libvirt's <tpm> decides (nova.EvidenceHost), with the
// version and model the domain has; why maps each promoted server to why
// the APIs did not decide it (nil when none was). inv.Guests itself is
// not changed.
func withHostEvidence(inv nova.Inventory, reports map[string]hostcheck.Report) (out []nova.VTPMGuest, why promotions) {
	guests := inv.Guests
	out = guests[:len(guests):len(guests)] // the first append copies
	add := func(g nova.VTPMGuest, p promotion) {
		rep, ok := reports[g.Host]
		if !ok {
			return
		}
		for _, d := range rep.VTPMGuests {
			if d.UUID != g.ServerID {
				continue
			}
			g.Evidence, g.Version, g.Model = nova.EvidenceHost, d.Version, d.Model
			if d.Mode != "" {
				g.Mode = d.Mode
			}
			out = append(out, g)
			if why == nil {
				why = promotions{}
			}
			why[g.ServerID] = p
			return
		}
	}
	for _, u := range inv.Undecided {
		add(u.Guest, promotion{undecided: u.Reason})
	}
	for _, u := range inv.Unconfirmed {
		add(u.Guest, promotion{unconfirmed: u.Reason})
	}
	return out, why
}
