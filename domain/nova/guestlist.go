package nova

import (
	"encoding/json"
	"iter"

	"github.com/vtpmctl/vtpmctl/internal/packed"
)

// GuestList is an inventory's vTPM guests in the order listed, packed:
// 72 bytes a guest and its name where a VTPMGuest with its ID takes
// about 225 (at 500,000 guests, 36 MB and the names instead of 112 MB).
// The ID is kept as its 16 bytes, the few distinct projects, users,
// hosts, statuses and modes once each; a guest whose ID is not a
// lowercase UUID is kept whole. At gives back each guest as it was
// added, field for field. A GuestList is a handle, as a map is: once it
// holds a guest its copies share its guests, and an Add through one is
// seen through all (a copy of the zero list, which is empty, does not:
// add through a pointer to it). With makes a new list (the audits'
// promoted guests).
type GuestList struct{ *guestRows }

type guestRows struct {
	rows  []packedGuest
	whole map[int32]*VTPMGuest
	strs  packed.Strings
}

type packedGuest struct {
	id   [16]byte
	name string
	// indexes into strs
	project, user, status, host, version, model, mode, flavorMode, evidence uint32
	whole                                                                   bool
}

// NewGuestList is a list of guests, in their order.
func NewGuestList(guests ...VTPMGuest) GuestList {
	var l GuestList
	l.Add(guests...)
	return l
}

// Add appends guests, in their order.
func (l *GuestList) Add(guests ...VTPMGuest) {
	if l.guestRows == nil {
		l.guestRows = &guestRows{}
	}
	for _, g := range guests {
		i := int32(len(l.rows))
		if id, ok := packed.UUID(g.ServerID); ok {
			l.rows = append(l.rows, packedGuest{id: id, name: g.Name, project: l.strs.Index(g.ProjectID), user: l.strs.Index(g.UserID),
				status: l.strs.Index(g.Status), host: l.strs.Index(g.Host), version: l.strs.Index(g.Version), model: l.strs.Index(g.Model),
				mode: l.strs.Index(string(g.Mode)), flavorMode: l.strs.Index(g.FlavorSecretSecurity), evidence: l.strs.Index(string(g.Evidence))})
			continue
		}
		if l.whole == nil {
			l.whole = map[int32]*VTPMGuest{}
		}
		l.rows = append(l.rows, packedGuest{whole: true})
		l.whole[i] = &g
	}
}

// With is a new list: l's guests, then guests (l is unchanged, and an
// Add to either is not seen in the other). It shares l's rows until its
// first Add, so it costs l's distinct strings, not its guests.
func (l GuestList) With(guests ...VTPMGuest) GuestList {
	out := GuestList{&guestRows{}}
	if l.guestRows != nil {
		// capacity clipped: out's first Add copies the rows
		out.rows, out.strs = l.rows[:len(l.rows):len(l.rows)], l.strs.Copy()
		if l.whole != nil {
			out.whole = make(map[int32]*VTPMGuest, len(l.whole))
			for i, g := range l.whole {
				out.whole[i] = g
			}
		}
	}
	out.Add(guests...)
	return out
}

// Len is the number of guests.
func (l GuestList) Len() int {
	if l.guestRows == nil {
		return 0
	}
	return len(l.rows)
}

// At is the i-th guest as it was added.
func (l GuestList) At(i int) VTPMGuest {
	p := l.rows[i]
	if p.whole {
		return *l.whole[int32(i)]
	}
	return VTPMGuest{ServerID: packed.FormatUUID(p.id), Name: p.name, ProjectID: l.strs.At(p.project), UserID: l.strs.At(p.user),
		Status: l.strs.At(p.status), Host: l.strs.At(p.host), Version: l.strs.At(p.version), Model: l.strs.At(p.model),
		Mode: SecretMode(l.strs.At(p.mode)), FlavorSecretSecurity: l.strs.At(p.flavorMode), Evidence: Evidence(l.strs.At(p.evidence))}
}

// All yields each guest with its index, in order.
func (l GuestList) All() iter.Seq2[int, VTPMGuest] {
	return func(yield func(int, VTPMGuest) bool) {
		for i := range l.Len() {
			if !yield(i, l.At(i)) {
				return
			}
		}
	}
}

// Slice is the guests as a slice (a few, for a reader that sorts or
// filters them; 500,000 take 112 MB this way).
func (l GuestList) Slice() []VTPMGuest {
	out := make([]VTPMGuest, 0, l.Len())
	for _, g := range l.All() {
		out = append(out, g)
	}
	return out
}

// MarshalJSON writes the guests as a list, as a []VTPMGuest is written.
func (l GuestList) MarshalJSON() ([]byte, error) { return json.Marshal(l.Slice()) }
