package barbican

import (
	"fmt"

	"github.com/vtpmctl/vtpmctl/nova"
)

// promote turns the undecided servers that have a vTPM secret named for
// them into guests (nova.EvidenceSecret): Nova creates that secret only
// for a server it gave a vTPM (nova/crypto.py ensure_vtpm_secret), so
// the server is one whatever its image says now. why maps each promoted
// server to why the APIs could not decide it; the rest are counted per
// reason.
func (f Facts) promote() (guests []Guest, why map[string]nova.Undecided, left map[nova.Undecided]int) {
	has := map[string]bool{}
	for _, s := range f.Secrets {
		has[s.InstanceID] = true
	}
	why = map[string]nova.Undecided{}
	for _, u := range f.Undecided {
		if !has[u.Guest.ServerID] {
			if left == nil {
				left = map[nova.Undecided]int{}
			}
			left[u.Reason]++
			continue
		}
		g := u.Guest
		g.Evidence = nova.EvidenceSecret
		guests = append(guests, g)
		why[g.ServerID] = u.Reason
	}
	return guests, why, left
}

// undecidedWarnings says what the audit could not see: volume-backed
// servers without block storage in the catalog were not decided at all,
// so a vTPM guest among them whose secret is missing is not found.
func undecidedWarnings(left map[nova.Undecided]int) []string {
	var out []string
	if n := left[nova.UndecidedNoBlockStorage]; n > 0 {
		out = append(out, fmt.Sprintf("%d volume-backed server(s) were not decided: the cloud's catalog has no block storage, so their boot volumes' image properties were not read; vTPM guests among them are audited only where a secret names them", n))
	}
	if n := left[nova.UndecidedVolumesUnreadable]; n > 0 {
		out = append(out, fmt.Sprintf("%d volume-backed server(s) were not decided: the block storage volume list failed, so their boot volumes' image properties were not read; vTPM guests among them are audited only where a secret names them", n))
	}
	return out
}
