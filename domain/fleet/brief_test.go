package fleet

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/output"
)

// screen is one terminal screen of 80 columns: what a brief table must
// fit at any fleet size.
const screen = 45

// scaleFleet is the synthetic cloud of issue 41: 100 Zed hosts, 2 down, 2
// disabled, one in ten without swtpm (no TPM trait), and 2,000 TPM 2.0
// CRB guests, 20 a host, on the hosts that have one.
func scaleFleet() ([]Host, nova.GuestList) {
	var hosts []Host
	var guests []nova.VTPMGuest
	for h := 0; h < 100; h++ {
		host := Host{Host: fmt.Sprintf("cmp-%05d", h), Hypervisor: fmt.Sprintf("cmp-%05d.example.net", h), State: "up", Status: "enabled", Traits: []string{"HW_CPU_X86_AVX2"}}
		if h%50 == 49 {
			host.State = "down"
		}
		if h%40 == 39 {
			host.Status = "disabled"
		}
		if h%10 != 9 {
			host.Traits = append(host.Traits, "COMPUTE_SECURITY_TPM_1_2", "COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_TIS", "COMPUTE_SECURITY_TPM_CRB")
		}
		hosts = append(hosts, host)
	}
	for i := 0; len(guests) < 2000; i++ {
		h := i % 100
		if h%10 == 9 {
			continue
		}
		guests = append(guests, nova.VTPMGuest{ServerID: fmt.Sprintf("340ca71c-0001-4000-a000-%012d", i), Name: fmt.Sprintf("vm-%06d", i),
			Host: hosts[h].Host, ProjectID: "p1", Version: "2.0", Model: "tpm-crb", Mode: nova.SecretUser})
	}
	return hosts, nova.NewGuestList(guests...)
}

func render(t *testing.T, v any, width int) []string {
	t.Helper()
	var b strings.Builder
	if err := output.Write(&b, output.Options{Format: "table", MaxWidth: width}, v); err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

// TestUpgradeBriefAtScale: at 2,000 stranded guests the table a person
// gets leads with the verdict and fits one screen at 80 columns: the
// hosts grouped (90 that stop receiving vTPM guests are one row), the
// stranded guests grouped by what they need (one row of 2,000, names a
// few), the advice naming a few hosts, the known bugs on one line; the
// long table still lists every host and guest.
func TestUpgradeBriefAtScale(t *testing.T) {
	hosts, guests := scaleFleet()
	u := UpgradeImpact(nova.Zed, nova.Gazpacho, hosts, guests)
	lines := render(t, u.Brief("<long>"), 80)
	page := strings.Join(lines, "\n")
	if len(lines) > screen {
		t.Errorf("brief table: %d lines at 80 columns, want at most %d:\n%s", len(lines), screen, page)
	}
	if !strings.Contains(strings.Join(lines[:5], " "), "fail: 2000 of 2000 vTPM guest(s) stranded") {
		t.Errorf("the verdict is not first:\n%s", page)
	}
	for _, want := range []string{"| 90    | true     | false ", "| 2000  | 90       |", "vm-000000,", "vm-000001,", "1997 more",
		"known vTPM/UEFI bugs fixed by 2026.1: 2118888", "every host, stranded guest and known bug: <long>"} {
		if !strings.Contains(page, want) {
			t.Errorf("brief table lacks %q:\n%s", want, page)
		}
	}
	// wider than 80 only as far as names never cut force it: as wide as
	// the table is at its narrowest
	forced := 80
	for _, l := range render(t, u.Brief("<long>"), 1) {
		forced = max(forced, len(l))
	}
	for _, l := range lines {
		if len(l) > forced {
			t.Errorf("line of %d columns (names force %d): %q", len(l), forced, l)
		}
	}
	if long := render(t, &u, 80); len(long) < 2000 {
		t.Errorf("the long table has %d lines: it must list every stranded guest", len(long))
	}
	if a := u.Advice[0]; len(a) > 500 || !strings.Contains(a, "the 90 host(s)") || !strings.Contains(a, "and 85 more") {
		t.Errorf("advice names every host: %d columns: %s", len(a), a)
	}
}

// TestUpgradeMissingNamesWhatGuestsNeed: a host's missing_traits holds
// every trait the fleet's guests require after the upgrade, the CRB trait
// the stranded guests need included (before: only a default TIS guest's).
func TestUpgradeMissingNamesWhatGuestsNeed(t *testing.T) {
	hosts, guests := scaleFleet()
	u := UpgradeImpact(nova.Zed, nova.Gazpacho, hosts, guests)
	need := u.Stranded[0].Requires
	for _, h := range u.Hosts {
		if h.Host != "cmp-00009" {
			continue
		}
		for _, t2 := range need {
			if !slices.Contains(h.Missing, t2) {
				t.Errorf("%s: missing_traits %v lacks %s, which its stranded guests need (%v)", h.Host, h.Missing, t2, need)
			}
		}
		return
	}
	t.Fatal("no cmp-00009 among the usable hosts")
}

// TestUpgradeOneShape: the summary view is the whole document's shape
// (same keys, "summary" in both), its lists empty; the summary counts
// are named for what they count.
func TestUpgradeOneShape(t *testing.T) {
	hosts, guests := scaleFleet()
	u := UpgradeImpact(nova.Zed, nova.Gazpacho, hosts, guests)
	keys := func(v any) ([]string, map[string]any) {
		b, _ := json.Marshal(v)
		var m map[string]any
		json.Unmarshal(b, &m)
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return ks, m
	}
	whole, wm := keys(&u)
	sum, sm := keys(u.SummaryView())
	brief, _ := keys(u.Brief("x"))
	if !slices.Equal(whole, sum) || !slices.Equal(whole, brief) {
		t.Errorf("keys differ by view: whole %v, summary %v, brief %v", whole, sum, brief)
	}
	want := map[string]any{"hosts_up_and_enabled": 96.0, "hosts_losing_vtpm": 90.0, "vtpm_guests": 2000.0, "stranded_guests": 2000.0}
	for k, v := range want {
		if wm["summary"].(map[string]any)[k] != v || sm["summary"].(map[string]any)[k] != v {
			t.Errorf("summary %s: whole %v, summary view %v, want %v", k, wm["summary"], sm["summary"], v)
		}
	}
	if len(sm["stranded_guests"].([]any)) != 0 || len(wm["stranded_guests"].([]any)) != 2000 || wm["schema"] != "vtpmctl.upgrade-check/2" {
		t.Errorf("lists: summary view %d stranded, whole %d; schema %v", len(sm["stranded_guests"].([]any)), len(wm["stranded_guests"].([]any)), wm["schema"])
	}
}

// TestDrainBrief: one host's 500 guests of one kind are one group, the
// verdict first, the reason said once, the guests named; a guest that
// stays leads; the long table names every guest.
func TestDrainBrief(t *testing.T) {
	var hosts []Host
	for i := 0; i < 40; i++ {
		hosts = append(hosts, Host{Host: fmt.Sprintf("cmp%02d", i), Hypervisor: fmt.Sprintf("cmp%02d", i), State: "up", Status: "enabled", Traits: userTraits})
	}
	var guests []nova.VTPMGuest
	for i := 0; i < 500; i++ {
		guests = append(guests, nova.VTPMGuest{ServerID: fmt.Sprintf("g%03d", i), Name: fmt.Sprintf("win-%03d", i), Host: "cmp00", Mode: nova.SecretUser, Version: "2.0", Model: "tpm-tis"})
	}
	// one guest no other host can take (TPM 1.2): it stays
	guests = append(guests, nova.VTPMGuest{ServerID: "old", Name: "legacy-1.2", Host: "cmp00", Mode: nova.SecretUser, Version: "1.2", Model: "tpm-tis"})
	reps, sum := AuditHosts(nova.Gazpacho, hosts, nil, nova.NewGuestList(guests...))
	d, ok := NewResult(nova.Gazpacho, reps, sum).Drain("cmp00")
	if !ok {
		t.Fatal("no cmp00")
	}
	lines := render(t, d.Brief("<long>"), 80)
	page := strings.Join(lines, "\n")
	if len(lines) > screen {
		t.Errorf("brief drain: %d lines, want at most %d:\n%s", len(lines), screen, page)
	}
	if !strings.Contains(strings.Join(lines[:5], " "), "cannot be drained: 1 of 501 vTPM guest(s) would stay") {
		t.Errorf("the verdict is not first:\n%s", page)
	}
	stays, cold := strings.Index(page, "| 1     | stays "), strings.Index(page, "| 500   | cold-migrate ")
	if stays < 0 || cold < 0 || stays > cold || !strings.Contains(page, "| 500   | cold-migrate | user | win-000, win-001, win-002 and 497") {
		t.Errorf("groups: the guest that stays first, then the 500 that cold-migrate, named:\n%s", page)
	}
	if n := strings.Count(page, "the guest is stopped"); n != 1 {
		t.Errorf("the cold-migration reason is said %d times, want once:\n%s", n, page)
	}
	long := render(t, &d, 0)
	if len(long) < 501 || !strings.Contains(long[1], "| name ") || !strings.Contains(strings.Join(long, "\n"), "| win-499 ") {
		t.Errorf("the long table must name every guest:\n%s", strings.Join(long[:min(len(long), 5)], "\n"))
	}
}
