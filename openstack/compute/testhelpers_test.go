package compute

import "github.com/vtpmctl/vtpmctl/domain/nova"

// Helpers only the tests call.

// Gone counts the UUIDs proven gone.
func (p GoneProof) Gone() int {
	n := 0
	for _, s := range p.Servers {
		if s.State == nova.ServerGone {
			n++
		}
	}
	return n
}
