package fleet

import (
	"fmt"
	"sort"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// UpgradeHost is one compute host before and after the scheduler upgrade.
type UpgradeHost struct {
	// Result is the upgrade's verdict for the host: fail when it stops
	// receiving vTPM guests, warn when it lacks a trait the target
	// release requires, pass otherwise.
	Result  result.Status `json:"result"`
	Host    string        `json:"host"`
	Now     Capability    `json:"now"`
	After   Capability    `json:"after"`
	Missing []string      `json:"missing_traits"` // required after, not reported now
	Loses   bool          `json:"stops_receiving_vtpm_guests"`
}

// StrandedGuest is a vTPM guest that, after the upgrade, fits no other
// host: no resize, no cold migration.
type StrandedGuest struct {
	nova.VTPMGuest
	Requires []string `json:"requires"`
}

// UpgradeResult is `upgrade check`.
type UpgradeResult struct {
	Schema     string          `json:"schema"`
	From       string          `json:"from"`
	To         string          `json:"to"`
	Hosts      []UpgradeHost   `json:"hosts"`
	Stranded   []StrandedGuest `json:"stranded_guests"`
	UpgradeNow []string        `json:"upgrade_first"`
	Advice     []string        `json:"advice"`
	// KnownBugs: hostcheck.KnownBugs, each with whether the target
	// release fixes it.
	KnownBugs []KnownBugFix `json:"known_bugs"`
	// Resolved is how the current release was settled: the command
	// prints its warning.
	Resolved nova.ResolvedRelease `json:"-"`
}

// UpgradeSchema names the JSON of `upgrade check`.
const UpgradeSchema = "vtpmctl.upgrade-check/1"

// Table is one row per host, worst result first; the stranded guests,
// the advice and the verdict follow it.
func (u *UpgradeResult) Table() output.Table {
	t := output.Table{Key: "hosts", Verdict: "result", Columns: []string{"result", "host", "vtpm_now", "vtpm_after", "missing_traits"}}
	for _, h := range u.Hosts {
		t.Rows = append(t.Rows, output.Record{{Name: "result", Value: h.Result}, {Name: "host", Value: h.Host}, {Name: "vtpm_now", Value: h.Now.TPM20 || h.Now.CRB},
			{Name: "vtpm_after", Value: h.After.TPM20 || h.After.CRB}, {Name: "missing_traits", Value: h.Missing}})
	}
	for _, s := range u.Stranded {
		t.Footer = append(t.Footer, fmt.Sprintf("stranded: %s (%s), project %s, on %s: needs %s on another host", s.Name, s.ServerID, s.ProjectID, s.Host, strings.Join(s.Requires, " ")))
	}
	for _, a := range u.Advice {
		t.Footer = append(t.Footer, "advice: "+a)
	}
	for _, k := range u.KnownBugs {
		t.Footer = append(t.Footer, fmt.Sprintf("known bug %s (%s): %s", k.ID, k.Title, k.Message))
	}
	t.Footer = append(t.Footer, fmt.Sprintf("upgrade %s -> %s: %d host(s) stop receiving vTPM guests, %d vTPM guest(s) stranded", u.From, u.To, len(u.UpgradeNow), len(u.Stranded)))
	return t
}

// UpgradeImpact says what a scheduler upgrade from→to does to vTPM guests,
// given the hosts' current traits (their nova-compute not yet upgraded).
func UpgradeImpact(from, to nova.Release, hosts []Host, guests nova.GuestList) UpgradeResult {
	res := UpgradeResult{Schema: UpgradeSchema, From: from.String(), To: to.String(), Hosts: []UpgradeHost{}, Stranded: []StrandedGuest{}, UpgradeNow: []string{},
		KnownBugs: KnownBugFixes(from, to)}
	usable := map[string][]string{}
	for _, h := range hosts {
		if h.State != "up" || h.Status != "enabled" {
			continue
		}
		usable[h.Host] = h.Traits
		uh := UpgradeHost{Host: h.Host, Now: CapabilityOf(from, h.Traits), After: CapabilityOf(to, h.Traits)}
		var mode nova.SecretMode
		if to.HasSecretSecurity() {
			mode = nova.SecretUser
		}
		for _, t := range nova.RequiredTraits(to, "2.0", "tpm-tis", mode) {
			if !contains(h.Traits, t) {
				uh.Missing = append(uh.Missing, t)
			}
		}
		uh.Loses = (uh.Now.TPM20 || uh.Now.CRB) && !(uh.After.TPM20 || uh.After.CRB)
		switch {
		case uh.Loses:
			uh.Result = result.Fail
		case len(uh.Missing) > 0:
			uh.Result = result.Warn
		default:
			uh.Result = result.Pass
		}
		if uh.Loses {
			res.UpgradeNow = append(res.UpgradeNow, h.Host)
		}
		res.Hosts = append(res.Hosts, uh)
	}
	for _, g := range guests.All() {
		var mode nova.SecretMode
		if to.HasSecretSecurity() {
			mode = g.Mode
			if !from.HasSecretSecurity() {
				// the new scheduler reads the flavor's spec, which the
				// old one ignored; none means user mode
				mode = nova.SecretMode(g.FlavorSecretSecurity)
			}
			if mode == "" {
				mode = nova.SecretUser
			}
		}
		need := nova.RequiredTraits(to, g.Version, g.Model, mode)
		fits := false
		for host, traits := range usable {
			if host == g.Host {
				continue // a move needs another host
			}
			ok := true
			for _, t := range need {
				ok = ok && contains(traits, t)
			}
			fits = fits || ok
		}
		if !fits {
			res.Stranded = append(res.Stranded, StrandedGuest{VTPMGuest: g, Requires: need})
		}
	}
	sort.Strings(res.UpgradeNow)
	missing := map[string]bool{}
	for _, h := range res.Hosts {
		if h.Loses {
			for _, t := range h.Missing {
				missing[t] = true
			}
		}
	}
	if len(res.UpgradeNow) > 0 {
		var ts []string
		for t := range missing {
			ts = append(ts, t)
		}
		sort.Strings(ts)
		res.Advice = append(res.Advice, fmt.Sprintf("the %s scheduler requires traits that only %s-or-later nova-compute reports (%s): upgrade nova-compute on %s in the same window as the scheduler, or vTPM boots, resizes and migrations find no host until they are",
			to, to, strings.Join(ts, " "), strings.Join(res.UpgradeNow, ", ")))
	}
	if to.RequiresOwnerNova() && !from.RequiresOwnerNova() {
		res.Advice = append(res.Advice, fmt.Sprintf("the %s scheduler requires OWNER_NOVA only once every nova-compute is %s, and each reports it from its own upgrade: it strands nothing by itself, but a host whose traits are edited by hand must keep it", to, to))
	}
	if len(res.Stranded) > 0 {
		res.Advice = append(res.Advice, fmt.Sprintf("%d vTPM guest(s) could not be resized or migrated anywhere after the upgrade; evacuation is refused for vTPM guests anyway", len(res.Stranded)))
	}
	return res
}
