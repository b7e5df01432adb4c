package vtpmsecret

import (
	"time"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// auditor is one audit's join, kept by a streamed result to audit its
// guests again on each walk. It holds indexes into f.Secrets, not
// copies of them: at 500,000 secrets a copy is ~110 MB.
type auditor struct {
	f   Facts // f.Guests holds the promoted guests too
	now time.Time
	why map[string]promotion
	// head is each instance's first secret (an index into f.Secrets),
	// next the one after it (-1: none): most instances have one.
	head      uuidIndex
	next      []int32
	instances []int32 // each instance's first secret, in the order of f.Secrets
	// guestSecret marks the secrets whose instance is an audited guest.
	guestSecret []bool
	byID        uuidIndex         // with consumers only
	servers     map[string]string // server ID -> name, with consumers only
	undecided   map[nova.Undecided]int
	serviceUser *ServiceUser
}

func newAuditor(f Facts, now time.Time) *auditor {
	n := f.Secrets.Len()
	a := &auditor{now: now, head: newUUIDIndex(n), next: make([]int32, n), guestSecret: make([]bool, n)}
	// the chain is built backwards (each secret before the one listed
	// after it), so no map of chains' tails is needed
	for i := n - 1; i >= 0; i-- {
		k := f.Secrets.instanceKey(i)
		if j, ok := a.head.lookup(k); ok {
			a.next[i] = j
		} else {
			a.next[i] = -1
		}
		a.head.put(k, int32(i))
	}
	for i := range n {
		if j, _ := a.head.lookup(f.Secrets.instanceKey(i)); j == int32(i) {
			a.instances = append(a.instances, int32(i))
		}
	}
	promoted, why, undecided := f.promote(func(id string) bool { _, ok := a.head.get(id); return ok })
	f.Guests = f.Guests.With(promoted...)
	a.why, a.undecided = why, undecided
	if a.serviceUser = resolveServiceUser(f); a.serviceUser != nil {
		f.ServiceUserID = a.serviceUser.ID
	}
	for _, g := range f.Guests.All() {
		if i, ok := a.head.get(g.ServerID); ok {
			a.guestSecret[i] = true
		}
	}
	if f.API.HasConsumers() {
		a.byID = newUUIDIndex(n)
		for i := range n {
			a.byID.put(f.Secrets.secretKey(i), int32(i))
		}
		a.servers = make(map[string]string, len(f.OtherServers)+f.Guests.Len())
		for id, o := range f.OtherServers {
			a.servers[id] = o.Name
		}
		for _, g := range f.Guests.All() {
			a.servers[g.ServerID] = g.Name
		}
	}
	a.f = f
	return a
}

// secretsOf are the secrets named for instance id, as listed.
func (a *auditor) secretsOf(id string) []Secret {
	i, ok := a.head.get(id)
	if !ok {
		return nil
	}
	var out []Secret
	for ; i >= 0; i = a.next[i] {
		out = append(out, a.f.Secrets.At(int(i)))
	}
	return out
}

// isGuest: instance id is an audited guest.
func (a *auditor) isGuest(id string) bool {
	i, ok := a.head.get(id)
	return ok && a.guestSecret[i]
}

// guest is one guest's whole result: its checks, names, why it is one
// when a secret promoted it, and its protection where consumers were read.
func (a *auditor) guest(g Guest) (gr GuestResult) {
	defer func() { gr.Result = gr.RowStatus() }()
	f := a.f
	gr = auditGuest(f, g, a.secretsOf(g.ServerID), a.now)
	gr.ProjectName, gr.OwnerName = f.ProjectNames[g.ProjectID], f.Users[g.UserID].Name
	if p, ok := a.why[g.ServerID]; ok {
		gr.Undecided, gr.Unconfirmed, gr.EvidenceReason = p.undecided, p.unconfirmed, p.words(g.Status)
	}
	if a.byID.uuids == nil {
		return gr
	}
	if i, ok := a.byID.get(gr.SecretID); ok && f.Secrets.At(int(i)).Consumers != nil {
		s := f.Secrets.At(int(i))
		state, finding := protection(f, g.ServerID, s, a.servers)
		gr.Protection, gr.Consumers = state, s.Consumers
		gr.Findings = append(gr.Findings, finding)
	}
	return gr
}

// count adds a guest's protection to the fleet's counts.
func (n *ConsumerCounts) count(state Protection) {
	switch state {
	case Protected:
		n.Protected++
	case Mismatched:
		n.Mismatched++
	default:
		n.Unprotected++
	}
}

// EachGuest calls yield with each guest's result in order until it
// returns false: the guests held, or those of a streamed audit audited
// again, worded with the caller's names (Name) and kept by its view
// (Only) as a held result's are.
func (r *Result) EachGuest(yield func(GuestResult) bool) {
	if r.walk == nil {
		for _, g := range r.Guests {
			if !yield(g) {
				return
			}
		}
		return
	}
	for _, g := range r.walk.f.Guests.All() {
		gr := r.walk.guest(g)
		if r.names != nil {
			nameFindings(&gr, r.names)
		}
		if len(r.only) > 0 && !r.only.Keeps(gr.RowStatus()) {
			continue
		}
		if !yield(gr) {
			return
		}
	}
}

// Streamed says whether the result audits its guests on each walk
// (AuditStreamed): its Guests is then nil, EachGuest walks them.
func (r *Result) Streamed() bool { return r.walk != nil }

// StreamedList is the guests of a streamed result as a walk (the output
// writers' Streamer); a held result's are written as any list.
func (r *Result) StreamedList(key string) (func(yield func(any) bool), bool) {
	if key != "guests" || r.walk == nil {
		return nil, false
	}
	return func(yield func(any) bool) {
		r.EachGuest(func(g GuestResult) bool { return yield(&g) })
	}, true
}
