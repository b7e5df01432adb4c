package vtpmsecret

import (
	"fmt"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/completeness"
)

// A key manager whose endpoint the catalog lists under several regions
// (one Barbican behind two regions' Novas) holds the secrets of every
// one of those regions' guests: one region's 404 says nothing of
// another's guest. An instance is gone only when each of those regions'
// Novas proved it gone.

// RegionServers is another region's server list as the audit reads it:
// the servers its Nova listed (every project's, IDs only), and why that
// list cannot prove a server absent.
type RegionServers struct {
	// Region is its name; "" stands for the regions the catalog could not
	// name (Err says why).
	Region  string
	Servers nova.ServerIDs
	// Err says why its servers could not be listed, or not to the end (no
	// compute endpoint, a failed or cut list); Servers are those read
	// before.
	Err string
	// Gaps are the list's own (below 2.69, a cell down), in its words.
	Gaps completeness.Gaps
}

// complete says whether the list can prove a server absent.
func (r RegionServers) complete() bool { return r.Region != "" && r.Err == "" && r.Gaps.Complete() }

// gaps are the list's reasons to be incomplete, each naming its region.
func (r RegionServers) gaps() completeness.Gaps {
	var gs completeness.Gaps
	switch {
	case r.Region == "":
		gs.Add(completeness.Failed, "which regions share the key manager cannot be read from the catalog (%s): another region's Nova may hold the instances", r.Err)
	case r.Err != "":
		gs.Add(completeness.Failed, "region %s's servers could not be listed: %s: it shares the key manager, so its guests' secrets are here too", r.Region, r.Err)
	}
	for _, g := range r.Gaps {
		gs = append(gs, completeness.Gap{Kind: g.Kind, Detail: "region " + r.Region + ": " + g.Detail})
	}
	return gs
}

// liveIn is the first other region whose Nova lists server id ("": none).
func (f Facts) liveIn(id string) string {
	for _, r := range f.Regions {
		if r.Region != "" && r.Servers.Has(id) {
			return r.Region
		}
	}
	return ""
}

// serversComplete says whether a server no list read holds is gone:
// this region's list is every project's and complete, and so is every
// other region's that shares the key manager.
func (f Facts) serversComplete() bool {
	if !f.CompleteServers {
		return false
	}
	for _, r := range f.Regions {
		if !r.complete() {
			return false
		}
	}
	return true
}

// regionGaps are the other regions' lists' gaps, in their order.
func (f Facts) regionGaps() completeness.Gaps {
	var gs completeness.Gaps
	for _, r := range f.Regions {
		gs = append(gs, r.gaps()...)
	}
	return gs
}

// absence is what the servers read say of an instance none of them
// lists, worked out once an audit.
type absence struct {
	// proves: every list is complete (serversComplete).
	proves bool
	// why they cannot prove it, when they cannot.
	why string
	// elsewhere names the other regions' lists, for the words of a gone
	// instance ("" with none).
	elsewhere string
}

func (f Facts) absence() absence {
	a := absence{proves: f.serversComplete()}
	for _, r := range f.Regions {
		if r.Region != "" {
			a.elsewhere += " nor region " + r.Region + "'s"
		}
	}
	if a.elsewhere != "" {
		a.elsewhere = ", neither this region's" + a.elsewhere + " (the key manager is theirs too)"
	}
	if a.proves {
		return a
	}
	why := f.ServerGaps.String()
	if why == "" && !f.CompleteServers {
		why = "not every project's servers were listed"
	}
	if rg := f.regionGaps().String(); rg != "" && why != "" {
		why += "; " + rg
	} else if rg != "" {
		why = rg
	}
	a.why = why
	return a
}

// RegionAsked is one region whose catalog lists the key manager's
// endpoint, and what its Nova was asked.
type RegionAsked struct {
	Region string `json:"region"`
	// ComputeEndpoint is its Nova ("" when it has none).
	ComputeEndpoint string `json:"compute_endpoint,omitempty"`
	// Asked are the UUIDs put to it: those every region before it
	// answered 404 for (none left: it was not asked).
	Asked int `json:"asked"`
	// Gone are those it answered 404 for, every cell up.
	Gone int `json:"gone"`
	// Unreachable says why its Nova could not be asked at all (no
	// compute endpoint in the catalog).
	Unreachable string `json:"unreachable,omitempty"`
	// Blocked says why its answers prove nothing (no admin role, a cell
	// down, the service list unreadable).
	Blocked completeness.Gaps `json:"blocked,omitempty"`
}

// RegionAnswer is one region's Nova's word on the UUIDs put to it, or
// why it could not be asked (Err).
type RegionAnswer struct {
	Region string
	Err    string
	Proof  ServerProof
}

// GoneIn are those of ids the proof says are gone, in ids' order: what
// the next region's Nova is asked.
func GoneIn(p ServerProof, ids []string) []string {
	var out []string
	for _, id := range ids {
		if p.Servers[id].State == nova.ServerGone {
			out = append(out, id)
		}
	}
	return out
}

// AcrossRegions is one proof from the Novas of every region whose
// catalog lists the key manager's endpoint (regions, the session's
// first), asked in that order, each about the UUIDs every region before
// it answered 404 for (answers: one per region asked; a region left out
// was not asked). An instance exists when any region's Nova has it; it is
// gone only when every region's Nova answered 404 for it, every cell up;
// anything else leaves it undetermined, naming the first region that
// could not say. Pure.
func AcrossRegions(regions []string, ids []string, answers []RegionAnswer) ServerProof {
	out := ServerProof{Servers: make(map[string]nova.ExistenceProof, len(ids))}
	byRegion := make(map[string]RegionAnswer, len(answers))
	for _, a := range answers {
		byRegion[a.Region] = a
	}
	if len(answers) > 0 {
		out.Endpoint = answers[0].Proof.Endpoint
	}
	for _, r := range regions {
		a, asked := byRegion[r]
		ra := RegionAsked{Region: r, ComputeEndpoint: a.Proof.Endpoint, Unreachable: a.Err, Blocked: a.Proof.Blocked}
		for _, ex := range a.Proof.Servers {
			ra.Asked++
			if ex.State == nova.ServerGone {
				ra.Gone++
			}
		}
		out.Regions = append(out.Regions, ra)
		switch {
		case !asked:
		case a.Err != "":
			out.Blocked.Add(completeness.Failed, "region %s's Nova could not be asked: %s", r, a.Err)
		default:
			for _, g := range a.Proof.Blocked {
				out.Blocked = append(out.Blocked, completeness.Gap{Kind: g.Kind, Detail: "region " + r + ": " + g.Detail})
			}
		}
	}
	for _, id := range ids {
		out.Servers[id] = acrossRegions(regions, byRegion, id)
	}
	return out
}

// acrossRegions is every region's word on one UUID, as one.
func acrossRegions(regions []string, byRegion map[string]RegionAnswer, id string) nova.ExistenceProof {
	for i, r := range regions {
		if ex, ok := byRegion[r].Proof.Servers[id]; ok && ex.State == nova.ServerExists {
			if i > 0 {
				ex.Region = r
			}
			ex.Reason = "live in region " + r + ": " + ex.Reason
			return ex
		}
	}
	for _, r := range regions {
		a, asked := byRegion[r]
		ex, answered := a.Proof.Servers[id]
		switch {
		case !asked:
			return nova.ExistenceProof{State: nova.ServerUndetermined, Reason: "region " + r + "'s Nova was not asked"}
		case a.Err != "":
			return nova.ExistenceProof{State: nova.ServerUndetermined, Reason: "region " + r + "'s Nova could not be asked: " + a.Err}
		case !answered:
			why := "not asked"
			if !a.Proof.Blocked.Complete() {
				why = a.Proof.Blocked.String()
			}
			return nova.ExistenceProof{State: nova.ServerUndetermined, Reason: "region " + r + "'s Nova could not be asked: " + why}
		case ex.State != nova.ServerGone:
			return nova.ExistenceProof{State: nova.ServerUndetermined, Reason: "region " + r + "'s Nova could not be asked: " + ex.Reason}
		}
	}
	return nova.ExistenceProof{State: nova.ServerGone,
		Reason: fmt.Sprintf("GET /servers/%s answered 404 to an admin, every cell up, in each region whose catalog lists the key manager (%s)", id, strings.Join(regions, ", "))}
}

// regionNames are the regions of a proof, in the order asked.
func regionNames(rs []RegionAsked) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Region
	}
	return out
}
