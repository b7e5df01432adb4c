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
	Result result.Status `json:"result"`
	Host   string        `json:"host"`
	Now    Capability    `json:"now"`
	After  Capability    `json:"after"`
	// Missing: what the fleet's vTPM guests (and a default TPM 2.0 guest)
	// require after the upgrade that the host does not report now.
	Missing []string `json:"missing_traits"`
	Loses   bool     `json:"stops_receiving_vtpm_guests"`
}

// StrandedGuest is a vTPM guest that, after the upgrade, fits no other
// host: no resize, no cold migration.
type StrandedGuest struct {
	nova.VTPMGuest
	Requires []string `json:"requires"`
}

// UpgradeResult is `upgrade check`: one document whatever the view
// (--summary empties its lists, --status filters hosts; summary always
// counts the whole run).
type UpgradeResult struct {
	Schema     string          `json:"schema"`
	From       string          `json:"from"`
	To         string          `json:"to"`
	Summary    UpgradeSummary  `json:"summary"`
	Hosts      []UpgradeHost   `json:"hosts"` // the hosts up and enabled: the only ones the scheduler weighs
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

// UpgradeSchema names the JSON of `upgrade check`. Version 2: "summary"
// in every view (version 1 had it only with --summary, its "hosts" then
// counting only the hosts up and enabled), and a host's missing_traits
// naming every trait the fleet's guests require after, CRB included.
const UpgradeSchema = "vtpmctl.upgrade-check/2"

// UpgradeSummary counts what the upgrade check weighed; each key says
// what it counts.
type UpgradeSummary struct {
	Hosts      int `json:"hosts_up_and_enabled"` // .hosts[]: hosts audit's hosts_up_and_enabled
	Losing     int `json:"hosts_losing_vtpm"`
	VTPMGuests int `json:"vtpm_guests"`
	Stranded   int `json:"stranded_guests"`
	KnownBugs  int `json:"known_bugs"`
	Fixed      int `json:"known_bugs_fixed_by_upgrade"`
}

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
		if h.State == "up" && h.Status == "enabled" {
			usable[h.Host] = h.Traits
		}
	}
	// What the guests require after: each guest's set, and all of them
	// with a default TPM 2.0 guest's, which a host lacking is missing.
	var mode nova.SecretMode
	if to.HasSecretSecurity() {
		mode = nova.SecretUser
	}
	required := map[string]bool{}
	for _, t := range nova.RequiredTraits(to, "2.0", "tpm-tis", mode) {
		required[t] = true
	}
	for _, g := range guests.All() {
		need := guestNeedsAfter(from, to, g)
		for _, t := range need {
			required[t] = true
		}
		fits := false
		for host, traits := range usable {
			if host == g.Host {
				continue // a move needs another host
			}
			if hasAll(traits, need) {
				fits = true
				break
			}
		}
		if !fits {
			res.Stranded = append(res.Stranded, StrandedGuest{VTPMGuest: g, Requires: need})
		}
	}
	all := make([]string, 0, len(required))
	for t := range required {
		all = append(all, t)
	}
	sort.Strings(all)
	for _, h := range hosts {
		if _, ok := usable[h.Host]; !ok {
			continue
		}
		uh := UpgradeHost{Host: h.Host, Now: CapabilityOf(from, h.Traits), After: CapabilityOf(to, h.Traits)}
		for _, t := range all {
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
		res.Advice = append(res.Advice, fmt.Sprintf("the %s scheduler requires traits that only %s-or-later nova-compute reports (%s): upgrade nova-compute on the %d host(s) that stop receiving vTPM guests (%s) in the same window as the scheduler, or vTPM boots, resizes and migrations find no host until they are",
			to, to, strings.Join(ts, " "), len(res.UpgradeNow), someHosts(res.UpgradeNow)))
	}
	if to.RequiresOwnerNova() && !from.RequiresOwnerNova() {
		res.Advice = append(res.Advice, fmt.Sprintf("the %s scheduler requires OWNER_NOVA only once every nova-compute is %s, and each reports it from its own upgrade: it strands nothing by itself, but a host whose traits are edited by hand must keep it", to, to))
	}
	if len(res.Stranded) > 0 {
		res.Advice = append(res.Advice, fmt.Sprintf("%d vTPM guest(s) could not be resized or migrated anywhere after the upgrade; evacuation is refused for vTPM guests anyway", len(res.Stranded)))
	}
	res.Summary = UpgradeSummary{Hosts: len(res.Hosts), Losing: len(res.UpgradeNow), VTPMGuests: guests.Len(), Stranded: len(res.Stranded), KnownBugs: len(res.KnownBugs)}
	for _, k := range res.KnownBugs {
		if k.FixedByUpgrade {
			res.Summary.Fixed++
		}
	}
	return res
}

// guestNeedsAfter: the traits the new scheduler requires for g.
func guestNeedsAfter(from, to nova.Release, g nova.VTPMGuest) []string {
	var mode nova.SecretMode
	if to.HasSecretSecurity() {
		mode = g.Mode
		if !from.HasSecretSecurity() {
			// the new scheduler reads the flavor's spec, which the old
			// one ignored; none means user mode
			mode = nova.SecretMode(g.FlavorSecretSecurity)
		}
		if mode == "" {
			mode = nova.SecretUser
		}
	}
	return nova.RequiredTraits(to, g.Version, g.Model, mode)
}
