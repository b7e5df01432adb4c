package fleet

import (
	"fmt"
	"sort"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// DrainAction answers "can I drain this guest's host?" for one guest.
type DrainAction string

const (
	DrainLive  DrainAction = "live-migrate"
	DrainCold  DrainAction = "cold-migrate" // stopped, moved, started: downtime
	DrainStays DrainAction = "stays"        // no way off this host
)

// DrainActions in the order summaries list them.
var DrainActions = []DrainAction{DrainLive, DrainCold, DrainStays}

// DrainHost is one compute host as drain source or destination.
type DrainHost struct {
	Host   string
	Usable bool // up and enabled
	Traits []string
	Report *hostcheck.Report // its host check report; nil: none given
}

// DrainGuest is the guest to move.
type DrainGuest struct {
	ServerID       string
	Mode           nova.SecretMode
	Version, Model string
}

// minLiveMigrationRelease: compute/api.py MIN_COMPUTE_VTPM_LIVE_MIGRATION
// (service version 72) is the first service version of 2026.1.
const minLiveMigrationRelease = nova.Gazpacho

// DecideDrain says how a guest leaves src, purely from the release of the
// API and scheduler, the guest's mode, and what the hosts' reports say.
// Compute service versions: GET /os-services shows no version at any
// microversion (api/openstack/compute/services.py _get_service_detail),
// so each host's release comes from its host check report.
func DecideDrain(rel nova.Release, g DrainGuest, src DrainHost, others []DrainHost) (DrainAction, string) {
	mode := g.Mode
	if rel.HasSecretSecurity() && mode == "" {
		mode = nova.DefaultSecSecMode
	}
	dest, why, otherCell := destinations(rel, mode, g, src, others)
	n := len(dest)
	cells := cellNote(src, dest, otherCell)
	liveWhy := liveBlocker(rel, mode, g, src, others)
	if liveWhy == "" {
		if n > 0 {
			return DrainLive, fmt.Sprintf("host mode on %s: %d destination(s) (%s)%s%s", rel, n, someOf(dest), liveNotes(src, others), cells)
		}
		liveWhy = "live migration: " + why
	}
	// Cold migration: compute/api.py puts no vTPM refusal on resize() or
	// migrate (reject_vtpm_instances covers rebuild, shelve, rescue,
	// evacuate); _validate_vtpm_secret_security runs only when the flavor
	// changes, so a same-flavor move is allowed in every mode, and the
	// libvirt driver copies the swtpm state (_finish_migration_vtpm).
	if n == 0 {
		if liveWhy == "live migration: "+why { // host mode: the same hosts refused both
			return DrainStays, liveWhy + "; cold migration: likewise"
		}
		return DrainStays, liveWhy + "; cold migration: " + why
	}
	reason := liveWhy + fmt.Sprintf("; cold migration to %d destination(s) (%s): the guest is stopped", n, someOf(dest))
	return DrainCold, reason + coldNotes(rel, mode, src, dest) + cells
}

// liveBlocker: why Nova or the source refuses a live migration ("" none).
func liveBlocker(rel nova.Release, mode nova.SecretMode, g DrainGuest, src DrainHost, others []DrainHost) string {
	if !rel.HostModeLiveMigration() {
		// "before 2026.1", not the release: from the API alone 2025.1 and
		// 2025.2 look alike (the same maximum microversion).
		return fmt.Sprintf("live migration: Nova before %s refuses it for every vTPM guest", minLiveMigrationRelease)
	}
	if mode != nova.SecretHost {
		return fmt.Sprintf("live migration: Nova refuses it in %s mode (only host mode)", mode)
	}
	for i := -1; i < len(others); i++ {
		h := src
		if i >= 0 {
			h = others[i]
		}
		if h.Report == nil {
			continue
		}
		if hr := h.Report.NovaRelease; hr != nova.ReleaseUnknown && hr < minLiveMigrationRelease {
			return fmt.Sprintf("live migration: VTPMOldCompute (nova-compute on %s runs %s; every compute must be %s or later)", h.Host, hr, minLiveMigrationRelease)
		}
	}
	if src.Report != nil {
		for _, rg := range src.Report.VTPMGuests {
			if rg.UUID == g.ServerID && rg.MigrationReady != nil && !*rg.MigrationReady {
				return "live migration: " + strings.Join(rg.MigrationReasons, "; ")
			}
		}
	}
	return ""
}

// liveNotes: what the decision could not verify.
func liveNotes(src DrainHost, others []DrainHost) string {
	var notes []string
	if src.Report == nil {
		notes = append(notes, "the source's libvirt secret is not verified (no host check report)")
	} else if src.Report.Facts.SwtpmMigration == hostcheck.No {
		// qemu_migration.c refuses this only for TPM state on shared storage.
		notes = append(notes, "the running swtpm does not support migration (no cmdarg-migration): libvirt refuses if the TPM state is on shared storage")
	}
	if src.Report == nil || src.Report.Facts.Libtpms == "" {
		notes = append(notes, "libtpms versions not compared (the source's is unknown)")
	}
	missing := 0
	for _, h := range others {
		if h.Report == nil {
			missing++
		}
	}
	if missing > 0 || src.Report == nil {
		notes = append(notes, "compute service versions unknown where no report (os-services shows none)")
	}
	if len(notes) == 0 {
		return ""
	}
	return "; " + strings.Join(notes, "; ")
}

// destinations: the other usable hosts of the source's cell (Nova moves
// a guest only within its cell; a host whose cell or the source's is
// unknown is kept) with the traits this guest requires and a libtpms no
// older than the source's (TPM state cannot be downgraded), sorted by
// name; when none, why; and how many hosts another cell's were left out.
func destinations(rel nova.Release, mode nova.SecretMode, g DrainGuest, src DrainHost, others []DrainHost) ([]*DrainHost, string, int) {
	need := nova.RequiredTraits(rel, g.Version, g.Model, mode)
	srcLib := ""
	if src.Report != nil {
		srcLib = src.Report.Facts.Libtpms
	}
	var ok []*DrainHost
	down, noTrait, older, otherCell := 0, 0, 0, 0
	for i := range others {
		h := &others[i]
		switch {
		case h.Host == src.Host:
			continue
		case otherCellOf(&src, h):
			otherCell++
		case !h.Usable:
			down++
		case !hasAll(h.Traits, need):
			noTrait++
		case srcLib != "" && h.Report != nil && h.Report.Facts.Libtpms != "" && hostcheck.CompareVersions(h.Report.Facts.Libtpms, srcLib) < 0:
			older++
		default:
			ok = append(ok, h)
		}
	}
	sort.Slice(ok, func(i, j int) bool { return ok[i].Host < ok[j].Host })
	if len(ok) > 0 {
		return ok, "", otherCell
	}
	why := []string{}
	if otherCell > 0 {
		why = append(why, fmt.Sprintf("%d in another cell (Nova moves a guest only within its cell)", otherCell))
	}
	if down > 0 {
		why = append(why, fmt.Sprintf("%d down or disabled", down))
	}
	if noTrait > 0 {
		why = append(why, fmt.Sprintf("%d without %s", noTrait, strings.Join(need, "+")))
	}
	if older > 0 {
		why = append(why, fmt.Sprintf("%d with libtpms older than the source's %s (TPM state cannot be downgraded)", older, srcLib))
	}
	if len(why) == 0 {
		return nil, "no other compute host", 0
	}
	return nil, "no destination: " + strings.Join(why, ", "), 0
}

// someHosts names up to five hosts and counts the rest: a reason per
// guest must not carry the whole fleet (50,000 guests × 1,000 hosts).
func someHosts(n []string) string {
	if len(n) <= 5 {
		return strings.Join(n, ", ")
	}
	return strings.Join(n[:5], ", ") + fmt.Sprintf(" and %d more", len(n)-5)
}

// someOf: someHosts of sorted destinations.
func someOf(d []*DrainHost) string {
	n := make([]string, 0, min(len(d), 5))
	for _, h := range d[:min(len(d), 5)] {
		n = append(n, h.Host)
	}
	if len(d) > len(n) {
		return strings.Join(n, ", ") + fmt.Sprintf(" and %d more", len(d)-len(n))
	}
	return strings.Join(n, ", ")
}

func hasAll(have, need []string) bool {
	for _, t := range need {
		if !contains(have, t) {
			return false
		}
	}
	return true
}

// addDrain answers the drain question for every guest of every host
// (out[i] is hosts[i]'s report, its AtRisk in byHost order).
func addDrain(rel nova.Release, hosts []Host, reports map[string]hostcheck.Report, guests nova.GuestList, byHost map[string][]int32, out []HostReport, sum *Summary) {
	dh := make([]DrainHost, len(hosts))
	for i, h := range hosts {
		dh[i] = DrainHost{Host: h.Host, Usable: h.State == "up" && h.Status == "enabled", Traits: h.Traits}
		if rep, ok := reports[h.Hypervisor]; ok {
			dh[i].Report = &rep
		} else if rep, ok := reports[h.Host]; ok {
			dh[i].Report = &rep
		}
	}
	sum.Drain = map[DrainAction]int{}
	// The answer depends on the guest only through its mode, version,
	// model and (host mode) its source report's readiness: decided once
	// per kind per host, the reason string shared, not rebuilt per guest.
	type kind struct {
		mode           nova.SecretMode
		version, model string
		unready        string // the source report's reasons, "" ready or not listed
	}
	type answer struct {
		a   DrainAction
		why string
	}
	for i := range out {
		on := byHost[hosts[i].Host]
		unready := map[string]string{}
		if r := dh[i].Report; r != nil {
			for _, rg := range r.VTPMGuests {
				if rg.MigrationReady != nil && !*rg.MigrationReady {
					unready[rg.UUID] = "\x00" + strings.Join(rg.MigrationReasons, "; ")
				}
			}
		}
		decided := map[kind]answer{}
		for j := range out[i].AtRisk {
			if j >= len(on) {
				break
			}
			g := guests.At(int(on[j]))
			k := kind{g.Mode, g.Version, g.Model, unready[g.ServerID]}
			ans, ok := decided[k]
			if !ok {
				ans.a, ans.why = DecideDrain(rel, DrainGuest{ServerID: g.ServerID, Mode: g.Mode, Version: g.Version, Model: g.Model}, dh[i], dh)
				decided[k] = ans
			}
			out[i].AtRisk[j].Drain, out[i].AtRisk[j].DrainReason = ans.a, ans.why
			sum.Drain[ans.a]++
		}
	}
}

// DrainSchema names the JSON of the fleet audit's drain view (one host).
const DrainSchema = "vtpmctl.hosts-drain/1"

// DrainResult is the fleet audit's drain view of one host: that host's
// guests and how each leaves it.
type DrainResult struct {
	Schema  string              `json:"schema"`
	Host    string              `json:"host"`
	Guests  []RiskGuest         `json:"guests"`
	Summary map[DrainAction]int `json:"summary"`
}

// Drain picks one host's answers from the audit; ok false when the audit
// has no such host (by service host or hypervisor name).
func (f *Result) Drain(host string) (DrainResult, bool) {
	for _, h := range f.Hosts {
		if h.Host != host && h.Hypervisor != host {
			continue
		}
		d := DrainResult{Schema: DrainSchema, Host: h.Host, Guests: []RiskGuest{}, Summary: map[DrainAction]int{}}
		d.Guests = append(d.Guests, h.AtRisk...)
		for _, a := range DrainActions {
			d.Summary[a] = 0
		}
		for _, g := range d.Guests {
			d.Summary[g.Drain]++
		}
		return d, true
	}
	return DrainResult{}, false
}

// Table: one row per guest, those that would stay first: its result
// (live-migrate pass, cold-migrate warn, stays fail), its server's ID and
// name, its mode, how it leaves and why.
func (d *DrainResult) Table() output.Table {
	t := output.Table{Key: "guests", Verdict: "result", Wrap: []string{"drain_reason"},
		Columns: []string{"result", "server_id", "name", "mode", "drain", "drain_reason"}}
	for _, g := range d.Guests {
		verdict := result.Pass
		switch g.Drain {
		case DrainCold:
			verdict = result.Warn
		case DrainStays:
			verdict = result.Fail
		}
		t.Rows = append(t.Rows, output.Record{{Name: "result", Value: verdict}, {Name: "server_id", Value: g.ServerID}, {Name: "name", Value: g.Name},
			{Name: "mode", Value: string(g.Mode)}, {Name: "drain", Value: string(g.Drain)}, {Name: "drain_reason", Value: g.DrainReason}})
	}
	t.Footer = []string{fmt.Sprintf("host %s: %d vTPM guest(s): %d live-migrate, %d cold-migrate, %d stay",
		output.ShownName(d.Host), len(d.Guests), d.Summary[DrainLive], d.Summary[DrainCold], d.Summary[DrainStays])}
	for _, g := range d.Guests {
		if !decidedByAPIs(g.Evidence) {
			t.Footer = append(t.Footer, fmt.Sprintf("evidence: %s (%s) counted as a vTPM guest because %s", output.ShownName(g.Name), output.ShownName(g.ServerID), g.evidenceWords()))
		}
	}
	return t
}
