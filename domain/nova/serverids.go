package nova

import "github.com/vtpmctl/vtpmctl/internal/packed"

// ServerIDs are the servers a Nova listed, by ID alone: what another
// region's Nova is asked (which instances it holds), kept as 16 bytes a
// lower-case UUID (at 50,000 servers under a megabyte). An ID that is no
// lower-case UUID is kept whole. The zero value is empty; Add through a
// pointer.
type ServerIDs struct {
	uuids map[[16]byte]struct{}
	other map[string]struct{}
}

// Add records id.
func (s *ServerIDs) Add(id string) {
	if u, ok := packed.UUID(id); ok {
		if s.uuids == nil {
			s.uuids = map[[16]byte]struct{}{}
		}
		s.uuids[u] = struct{}{}
		return
	}
	if s.other == nil {
		s.other = map[string]struct{}{}
	}
	s.other[id] = struct{}{}
}

// Has says whether id was listed.
func (s ServerIDs) Has(id string) bool {
	if u, ok := packed.UUID(id); ok {
		_, in := s.uuids[u]
		return in
	}
	_, in := s.other[id]
	return in
}

// Len is how many servers were listed.
func (s ServerIDs) Len() int { return len(s.uuids) + len(s.other) }
