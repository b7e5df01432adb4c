package fleet

import (
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// Cloud is what the fleet audit and the upgrade check read from the
// APIs, listed once (app/hosts.ReadCloud): the release, every hypervisor
// with its TPM traits, every project's vTPM guests.
type Cloud struct {
	Release   nova.ResolvedRelease
	Hosts     []Host
	Inventory nova.Inventory
}

// AuditCloud is the fleet audit of what ReadCloud listed (pure).
func AuditCloud(c Cloud, hostReports []hostcheck.Report) Result {
	rel := c.Release.Release
	match := matchReports(c.Hosts, hostReports)
	guests, why := withHostEvidence(c.Inventory, match.index)
	reps, sum := AuditHosts(rel, c.Hosts, match.index, guests)
	match.addFindings(reps, &sum)
	why.mark(reps)
	f := NewResult(rel, reps, sum)
	f.ReleaseContext = c.Release.Context()
	f.Resolved = c.Release
	return *f
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
func withHostEvidence(inv nova.Inventory, reports map[string]hostcheck.Report) (guests nova.GuestList, why promotions) {
	var out []nova.VTPMGuest // the promoted ones
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
	return inv.Guests.With(out...), why
}
