package vtpmsecret

import (
	"fmt"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// promotion is why the APIs did not make a promoted server a guest:
// undecided (nothing decided) or unconfirmed (decided "no vTPM" from
// properties as they are now); one of the two is set.
type promotion struct {
	undecided   nova.Undecided
	unconfirmed nova.Unconfirmed
}

// promote turns the undecided and unconfirmed servers that have a vTPM
// secret named for them into guests (nova.EvidenceSecret): Nova creates
// that secret only for a server it gave a vTPM (nova/crypto.py
// ensure_vtpm_secret) and deletes it when a confirmed resize drops the
// vTPM (libvirt driver _cleanup_resize_vtpm), so the server is one
// whatever its image or boot volume says now. why maps each promoted
// server to why the APIs did not decide it; the undecided rest are
// counted per reason (the unconfirmed rest are decided: not counted).
func (f Facts) promote(has func(instance string) bool) (guests []Guest, why map[string]promotion, left map[nova.Undecided]int) {
	why = map[string]promotion{}
	for _, u := range f.Undecided {
		if !has(u.Guest.ServerID) {
			if left == nil {
				left = map[nova.Undecided]int{}
			}
			left[u.Reason]++
			continue
		}
		guests = append(guests, bySecret(u.Guest))
		why[u.Guest.ServerID] = promotion{undecided: u.Reason}
	}
	for _, u := range f.Unconfirmed {
		if has(u.Guest.ServerID) {
			guests = append(guests, bySecret(u.Guest))
			why[u.Guest.ServerID] = promotion{unconfirmed: u.Reason}
		}
	}
	return guests, why, left
}

// named says whether a secret is named for an instance: a set of the
// secrets' instances, or none when no server waits for one (an undecided
// or unconfirmed one), as at 500,000 guests is common.
func (f Facts) named() func(string) bool {
	if len(f.Undecided)+len(f.Unconfirmed) == 0 {
		return func(string) bool { return false }
	}
	has := newUUIDIndex(f.Secrets.Len())
	for i := range f.Secrets.Len() {
		has.put(f.Secrets.instanceKey(i), 0)
	}
	return func(id string) bool { _, ok := has.get(id); return ok }
}

func bySecret(g Guest) Guest {
	g.Evidence = nova.EvidenceSecret
	return g
}

// statusVerifyResize is Nova's server status of a resize awaiting its
// confirm (or revert).
const statusVerifyResize = "VERIFY_RESIZE"

// words says why a guest promoted by its secret is audited as one, true
// for its reason (the table's footer and the JSON's evidence_reason).
func (p promotion) words(status string) string {
	if p.undecided != "" {
		return fmt.Sprintf("a secret is named for it; its image properties at boot could not be read (%s)", p.undecided)
	}
	var now string
	switch p.unconfirmed {
	case nova.UnconfirmedVolumeNow:
		now = "its boot volume's image properties as they are now ask for no vTPM (Nova read them at boot; the API never shows what it read)"
	case nova.UnconfirmedImageNow:
		now = "its image as it is now asks for no vTPM (the server list shows the properties Nova stored at boot only from microversion 2.98, which this cloud or release lacks)"
	default:
		now = fmt.Sprintf("its vTPM was decided from properties as they are now (%s)", p.unconfirmed)
	}
	out := "a secret is named for it though " + now + "; Nova deletes the secret when a confirmed resize drops the vTPM, so "
	if status == statusVerifyResize {
		return out + "either it was resized from a vTPM flavor to one without and awaits the confirm (status VERIFY_RESIZE: Nova deletes the secret only then, and a revert needs it), or the guest still has a vTPM (its properties were changed after boot), or Nova's delete of the secret failed"
	}
	return out + "the guest most likely still has a vTPM (its properties were changed after boot), or Nova's delete of the secret failed"
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
