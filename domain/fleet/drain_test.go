package fleet

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
)

const drainUUID = "6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d11"

var (
	hostTraits = []string{"COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_TIS", "COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER", "COMPUTE_SECURITY_TPM_SECRET_SECURITY_HOST"}
	userTraits = []string{"COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_TIS", "COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER"}
	oldTraits  = []string{"COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_TIS"}
)

// rep is a host check report: its release, libtpms, and the guest's
// readiness (nil: the guest is not in it).
func rep(rel nova.Release, libtpms string, ready *bool, why ...string) *hostcheck.Report {
	r := &hostcheck.Report{NovaRelease: rel, Facts: hostcheck.HostInfo{Libtpms: libtpms}}
	if ready != nil {
		r.VTPMGuests = []hostcheck.Guest{{UUID: drainUUID, MigrationReady: ready, MigrationReasons: why}}
	}
	return r
}

func ptr(b bool) *bool { return &b }

// TestDecideDrain: modes × release × destinations.
func TestDecideDrain(t *testing.T) {
	yes, no := ptr(true), ptr(false)
	cases := []struct {
		name   string
		rel    nova.Release
		mode   nova.SecretMode
		src    DrainHost
		others []DrainHost
		want   DrainAction
		reason string
	}{
		{"host mode, 2026.1, ready, destination", nova.Gazpacho, nova.SecretHost,
			DrainHost{Host: "a", Usable: true, Traits: hostTraits, Report: rep(nova.Gazpacho, "0.9.6", yes)},
			[]DrainHost{{Host: "b", Usable: true, Traits: hostTraits, Report: rep(nova.Gazpacho, "0.9.6", nil)}},
			DrainLive, "host mode on 2026.1: 1 destination(s) (b)"},
		{"host mode, no reports: live, unverified", nova.Hibiscus, nova.SecretHost,
			DrainHost{Host: "a", Usable: true, Traits: hostTraits}, []DrainHost{{Host: "b", Usable: true, Traits: hostTraits}},
			DrainLive, "the source's libvirt secret is not verified"},
		{"host mode, secret missing on the source: cold", nova.Gazpacho, nova.SecretHost,
			DrainHost{Host: "a", Usable: true, Traits: hostTraits, Report: rep(nova.Gazpacho, "", no, "no persistent libvirt secret for it here")},
			[]DrainHost{{Host: "b", Usable: true, Traits: hostTraits}},
			DrainCold, "live migration: no persistent libvirt secret for it here; cold migration to 1 destination(s) (b)"},
		{"host mode, an old compute in the cell: VTPMOldCompute", nova.Gazpacho, nova.SecretHost,
			DrainHost{Host: "a", Usable: true, Traits: hostTraits, Report: rep(nova.Gazpacho, "", yes)},
			[]DrainHost{{Host: "b", Usable: true, Traits: hostTraits}, {Host: "c", Usable: true, Traits: oldTraits, Report: rep(nova.Flamingo, "", nil)}},
			DrainCold, "VTPMOldCompute (nova-compute on c runs 2025.2; every compute must be 2026.1 or later"},
		{"host mode, destination without the HOST trait", nova.Gazpacho, nova.SecretHost,
			DrainHost{Host: "a", Usable: true, Traits: hostTraits}, []DrainHost{{Host: "b", Usable: true, Traits: userTraits}},
			DrainStays, "no destination: 1 without COMPUTE_SECURITY_TPM_2_0+COMPUTE_SECURITY_TPM_SECRET_SECURITY_HOST+COMPUTE_SECURITY_TPM_TIS"},
		{"host mode, destination's libtpms older", nova.Gazpacho, nova.SecretHost,
			DrainHost{Host: "a", Usable: true, Traits: hostTraits, Report: rep(nova.Gazpacho, "0.10.0", yes)},
			[]DrainHost{{Host: "b", Usable: true, Traits: hostTraits, Report: rep(nova.Gazpacho, "0.9.6", nil)}},
			DrainStays, "1 with libtpms older than the source's 0.10.0 (TPM state cannot be downgraded)"},
		{"host mode, destination's libtpms newer", nova.Gazpacho, nova.SecretHost,
			DrainHost{Host: "a", Usable: true, Traits: hostTraits, Report: rep(nova.Gazpacho, "0.9.6", yes)},
			[]DrainHost{{Host: "b", Usable: true, Traits: hostTraits, Report: rep(nova.Gazpacho, "0.10.0", nil)}},
			DrainLive, "(b)"},
		{"user mode, 2026.1: cold, with the token caveat", nova.Gazpacho, nova.SecretUser,
			DrainHost{Host: "a", Usable: true, Traits: hostTraits}, []DrainHost{{Host: "b", Usable: true, Traits: userTraits}},
			DrainCold, "live migration: Nova refuses it in user mode (only host mode); cold migration to 1 destination(s) (b): the guest is stopped; needs ssh from a"},
		{"unset mode is user on 2026.1", nova.Gazpacho, "",
			DrainHost{Host: "a", Usable: true, Traits: hostTraits}, []DrainHost{{Host: "b", Usable: true, Traits: userTraits}},
			DrainCold, "in user mode"},
		{"deployment mode: cold, no token caveat", nova.Gazpacho, nova.SecretDeployment,
			DrainHost{Host: "a", Usable: true}, []DrainHost{{Host: "b", Usable: true, Traits: append(append([]string{}, oldTraits...), "COMPUTE_SECURITY_TPM_SECRET_SECURITY_DEPLOYMENT")}},
			DrainCold, "in deployment mode (only host mode); cold migration to 1 destination(s) (b): the guest is stopped"},
		{"2025.2: no live migration for any vTPM guest", nova.Flamingo, "",
			DrainHost{Host: "a", Usable: true}, []DrainHost{{Host: "b", Usable: true, Traits: oldTraits}},
			DrainCold, "live migration: Nova before 2026.1 refuses it for every vTPM guest"},
		{"the only other host is down", nova.Gazpacho, nova.SecretHost,
			DrainHost{Host: "a", Usable: true, Traits: hostTraits}, []DrainHost{{Host: "b", Traits: hostTraits}},
			DrainStays, "no destination: 1 down or disabled"},
		{"a single host", nova.Gazpacho, nova.SecretUser, DrainHost{Host: "a", Usable: true}, nil, DrainStays, "cold migration: no other compute host"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			others := append([]DrainHost{c.src}, c.others...) // the source in the list is skipped
			got, why := DecideDrain(c.rel, DrainGuest{ServerID: drainUUID, Mode: c.mode, Version: "2.0", Model: "tpm-tis"}, c.src, others)
			if got != c.want || !strings.Contains(why, c.reason) {
				t.Errorf("got %s %q\nwant %s %q", got, why, c.want, c.reason)
			}
			if c.mode == nova.SecretDeployment && strings.Contains(why, "caller's token") {
				t.Errorf("deployment mode reads Barbican as Nova's service user: %q", why)
			}
		})
	}
}

// TestDecideDrainStaysReason: a guest that stays says why for live and
// cold migration, each once, with its prefix.
func TestDecideDrainStaysReason(t *testing.T) {
	src := DrainHost{Host: "a", Usable: true, Traits: hostTraits}
	down := []DrainHost{src, {Host: "b", Traits: hostTraits}}
	unready := src
	unready.Report = rep(nova.Gazpacho, "", ptr(false), "no persistent libvirt secret for it here")
	cases := []struct {
		name   string
		mode   nova.SecretMode
		src    DrainHost
		others []DrainHost
		want   string
	}{
		{"host mode, no destination", nova.SecretHost, src, down,
			"live migration: no destination: 1 down or disabled; cold migration: likewise"},
		{"host mode, a single host", nova.SecretHost, src, []DrainHost{src},
			"live migration: no other compute host; cold migration: likewise"},
		{"host mode, not ready, no destination", nova.SecretHost, unready, []DrainHost{unready, down[1]},
			"live migration: no persistent libvirt secret for it here; cold migration: no destination: 1 down or disabled"},
		{"user mode, no destination", nova.SecretUser, src, down,
			"live migration: Nova refuses it in user mode (only host mode); cold migration: no destination: 1 down or disabled"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, why := DecideDrain(nova.Gazpacho, DrainGuest{ServerID: drainUUID, Mode: c.mode, Version: "2.0", Model: "tpm-tis"}, c.src, c.others)
			if got != DrainStays || why != c.want {
				t.Errorf("got %s %q\nwant %s %q", got, why, DrainStays, c.want)
			}
		})
	}
}

// TestAuditDrain: the audit answers per guest, counts per answer, and
// The drain view picks one host (by service host or hypervisor name).
func TestAuditDrain(t *testing.T) {
	hosts := []Host{
		{Host: "a", Hypervisor: "a.example", State: "up", Status: "enabled", Traits: hostTraits},
		{Host: "b", Hypervisor: "b.example", State: "up", Status: "enabled", Traits: userTraits},
	}
	guests := []nova.VTPMGuest{
		{ServerID: "s1", Host: "a", Mode: nova.SecretHost, Version: "2.0", Model: "tpm-tis"},
		{ServerID: "s2", Host: "a", Mode: nova.SecretUser, Version: "2.0", Model: "tpm-tis"},
		{ServerID: "s3", Host: "b", Mode: nova.SecretUser, Version: "2.0", Model: "tpm-tis"},
	}
	reps, sum := AuditHosts(nova.Gazpacho, hosts, nil, nova.NewGuestList(guests...))
	if sum.Drain[DrainStays] != 1 || sum.Drain[DrainCold] != 2 || sum.Drain[DrainLive] != 0 {
		t.Errorf("summary %v", sum.Drain)
	}
	f := NewResult(nova.Gazpacho, reps, sum)
	d, ok := f.Drain("a.example")
	if !ok || d.Host != "a" || len(d.Guests) != 2 || d.Guests[0].Drain != DrainStays || d.Guests[1].Drain != DrainCold {
		t.Fatalf("drain a: %v %+v", ok, d)
	}
	if d.Summary[DrainStays] != 1 || d.Summary[DrainLive] != 0 {
		t.Errorf("drain summary %v", d.Summary)
	}
	if _, ok := f.Drain("c"); ok {
		t.Error("an unknown host was found")
	}
	if tb := d.Table(); len(tb.Rows) != 2 || !strings.Contains(tb.Footer[0], "1 cold-migrate, 1 stay") {
		t.Errorf("table %+v", tb)
	}
}

// TestDrainNotes: what a live answer could not verify is said.
func TestDrainNotes(t *testing.T) {
	src := DrainHost{Host: "a", Usable: true, Traits: hostTraits, Report: rep(nova.Gazpacho, "0.9.6", ptr(true))}
	src.Report.Facts.SwtpmMigration = hostcheck.No
	_, why := DecideDrain(nova.Gazpacho, DrainGuest{ServerID: drainUUID, Mode: nova.SecretHost, Version: "2.0", Model: "tpm-tis"}, src,
		[]DrainHost{{Host: "b", Usable: true, Traits: hostTraits}})
	for _, want := range []string{"the running swtpm does not support migration", "compute service versions unknown where no report"} {
		if !strings.Contains(why, want) {
			t.Errorf("%q lacks %q", why, want)
		}
	}
	if strings.Contains(why, "libtpms versions not compared") {
		t.Errorf("the source's libtpms is known: %q", why)
	}
}

// TestDrainReasonsBounded: a guest's reason names at most five
// destinations and counts the rest, and guests of one kind on one host
// share one reason (50,000 guests × 1,000 hosts must not keep 20 KB each).
func TestDrainReasonsBounded(t *testing.T) {
	var hosts []Host
	for i := 0; i < 40; i++ {
		hosts = append(hosts, Host{Host: fmt.Sprintf("cmp%02d", i), Hypervisor: fmt.Sprintf("cmp%02d", i), State: "up", Status: "enabled",
			Traits: []string{"COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_TIS", "COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER", "COMPUTE_SECURITY_TPM_SECRET_SECURITY_HOST"}})
	}
	var guests []nova.VTPMGuest
	for i := 0; i < 3; i++ {
		guests = append(guests, nova.VTPMGuest{ServerID: fmt.Sprintf("g%d", i), Host: "cmp00", Mode: nova.SecretUser, Version: "2.0", Model: "tpm-tis"})
	}
	out, sum := AuditHosts(nova.Gazpacho, hosts, nil, nova.NewGuestList(guests...))
	if sum.Drain[DrainCold] != 3 {
		t.Fatalf("drain summary %v", sum.Drain)
	}
	r := out[0].AtRisk
	if !strings.Contains(r[0].DrainReason, "39 destination(s)") || !strings.Contains(r[0].DrainReason, " and 34 more") {
		t.Errorf("reason %q", r[0].DrainReason)
	}
	if unsafe.StringData(r[0].DrainReason) != unsafe.StringData(r[2].DrainReason) {
		t.Error("guests of one kind on one host each built their own reason")
	}
}
