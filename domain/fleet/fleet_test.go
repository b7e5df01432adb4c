package fleet

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
)

func TestAuditFleet(t *testing.T) {
	zedTraits := []string{"COMPUTE_SECURITY_TPM_1_2", "COMPUTE_SECURITY_TPM_2_0"}
	newTraits := []string{"COMPUTE_SECURITY_TPM_1_2", "COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_CRB", "COMPUTE_SECURITY_TPM_TIS",
		"COMPUTE_SECURITY_TPM_SECRET_SECURITY_HOST", "COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER"}
	cases := []struct {
		name   string
		rel    nova.Release
		host   Host
		report *hostcheck.Report
		id     string
		status hostcheck.Status
		msg    string
	}{
		{"zed host on zed", nova.Zed, Host{Host: "a", State: "up", Status: "enabled", Traits: zedTraits}, nil, "TRAITS", hostcheck.Pass, "TPM 2.0 (TIS), TPM 2.0 (CRB)"},
		{"zed host under a 2024.2 scheduler", nova.Dalmatian, Host{Host: "a", State: "up", Status: "enabled", Traits: zedTraits}, nil, "STALE-TRAITS", hostcheck.Fail, "older than 2024.2"},
		{"2025.2 host under a 2026.1 scheduler", nova.Gazpacho, Host{Host: "a", State: "up", Status: "enabled", Traits: newTraits[:4]}, nil, "TRAITS", hostcheck.Fail, "missing COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER"},
		{"host mode on 2026.1", nova.Gazpacho, Host{Host: "a", State: "up", Status: "enabled", Traits: newTraits}, nil, "TRAITS", hostcheck.Pass, "host mode"},
		{"swtpm turned off leaves secret traits", nova.Gazpacho, Host{Host: "a", State: "up", Status: "enabled", Traits: []string{"COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER"}}, nil, "STALE-TRAITS", hostcheck.Fail, "Nova never removes"},
		{"not a vTPM host", nova.Zed, Host{Host: "a", State: "up", Status: "enabled", Traits: []string{}}, nil, "TRAITS", hostcheck.Warn, "not a vTPM host"},
		{"down host", nova.Zed, Host{Host: "a", State: "down", Status: "enabled", Traits: zedTraits}, nil, "SERVICE", hostcheck.Warn, "cannot be evacuated"},
		{"drift: config gives more", nova.Zed, Host{Host: "a", Hypervisor: "a.example", State: "up", Status: "enabled", Traits: zedTraits[:1]},
			&hostcheck.Report{Host: "a", Traits: zedTraits, Checks: []hostcheck.Check{}}, "CONFIG-DRIFT", hostcheck.Fail, "Placement lacks it"},
		{"drift: none", nova.Zed, Host{Host: "a", Hypervisor: "a.example", State: "up", Status: "enabled", Traits: zedTraits},
			&hostcheck.Report{Host: "a", Traits: zedTraits, Checks: []hostcheck.Check{}}, "CONFIG-DRIFT", hostcheck.Pass, "matches"},
	}
	for _, c := range cases {
		reports := map[string]hostcheck.Report{}
		if c.report != nil {
			reports[c.host.Hypervisor] = *c.report
		}
		reps, _ := AuditHosts(c.rel, []Host{c.host}, reports, nova.GuestList{})
		got := find(&reps[0], c.id)
		if got.Status != c.status || !strings.Contains(got.Message, c.msg) {
			t.Errorf("%s: %s %s %q, want %s containing %q", c.name, c.id, got.Status, got.Message, c.status, c.msg)
		}
	}
}

func TestFleetSummary(t *testing.T) {
	hosts := []Host{
		{Host: "a", State: "up", Status: "enabled", Traits: []string{"COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_TIS"}},
		{Host: "b", State: "up", Status: "enabled", Traits: []string{"COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_CRB", "COMPUTE_SECURITY_TPM_TIS"}},
		{Host: "c", State: "up", Status: "disabled", Traits: []string{"COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_CRB", "COMPUTE_SECURITY_TPM_TIS"}},
	}
	_, sum := AuditHosts(nova.Dalmatian, hosts, nil, nova.NewGuestList([]nova.VTPMGuest{{ServerID: "s1", Host: "a", Mode: "user"}}...))
	if sum.Hosts != 3 || sum.Usable != 2 || sum.TPM20 != 2 || sum.CRB != 1 || sum.HostMode != 0 || sum.AtRisk != 1 {
		t.Errorf("summary %+v", sum)
	}
}

func TestEvacuationRiskAndResumeTrap(t *testing.T) {
	h := Host{Host: "a", Hypervisor: "a.x", State: "up", Status: "enabled", Traits: []string{"COMPUTE_SECURITY_TPM_2_0"}}
	rep := hostcheck.Report{Host: "a", Traits: h.Traits, Checks: []hostcheck.Check{{ID: "RESUME-ON-BOOT", Status: hostcheck.Fail, Message: "come back in ERROR"}}}
	guests := []nova.VTPMGuest{{ServerID: "s1", Name: "win1", Host: "a", Mode: "user", UserID: "alice"}, {ServerID: "s2", Host: "b", Mode: "user"}}
	reps, sum := AuditHosts(nova.Zed, []Host{h}, map[string]hostcheck.Report{"a.x": rep}, nova.NewGuestList(guests...))
	r := reps[0]
	if c := find(&r, "EVACUATION-RISK"); c.Status != hostcheck.Warn || !strings.Contains(c.Message, "1 vTPM guest(s) here (1 user mode) cannot be evacuated") {
		t.Errorf("evacuation risk: %+v", c)
	}
	if len(r.AtRisk) != 1 || r.AtRisk[0].Owner != "alice" || sum.AtRisk != 1 {
		t.Errorf("at risk %+v %+v", r.AtRisk, sum)
	}
	if c := find(&r, "RESUME-ON-BOOT"); c.Status != hostcheck.Fail {
		t.Errorf("the host-reboot trap must reach the fleet view: %+v", c)
	}
	// Without guests and with the option off, both findings disappear.
	rep.Checks = []hostcheck.Check{{ID: "RESUME-ON-BOOT", Status: hostcheck.Pass}}
	reps, _ = AuditHosts(nova.Zed, []Host{h}, map[string]hostcheck.Report{"a.x": rep}, nova.GuestList{})
	r = reps[0]
	if find(&r, "EVACUATION-RISK").Status != "absent" || find(&r, "RESUME-ON-BOOT").Status != "absent" {
		t.Errorf("findings should be gone: %+v", r.Checks)
	}
}

// TestFleetReportFacts: what the APIs tell of a host reaches its report:
// Secure Boot from the trait, the vTPM guests on it, TPM 1.2 and the
// secret security modes in the TRAITS message.
func TestFleetReportFacts(t *testing.T) {
	traits := []string{"COMPUTE_SECURITY_TPM_1_2", "COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_TIS", "COMPUTE_SECURITY_UEFI_SECURE_BOOT",
		"COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER", "COMPUTE_SECURITY_TPM_SECRET_SECURITY_DEPLOYMENT"}
	guests := []nova.VTPMGuest{{ServerID: "s1", Name: "win1", Host: "a", Version: "2.0", Model: "tpm-tis", Mode: "user"}}
	reps, _ := AuditHosts(nova.Gazpacho, []Host{{Host: "a", State: "up", Status: "enabled", Traits: traits}}, nil, nova.NewGuestList(guests...))
	r := reps[0]
	if !r.Facts.SecureBoot || len(r.VTPMGuests) != 1 || r.VTPMGuests[0].UUID != "s1" || len(r.AtRisk) != 1 {
		t.Fatalf("facts %+v guests %+v at risk %+v", r.Facts, r.VTPMGuests, r.AtRisk)
	}
	for _, c := range r.Checks {
		if c.ID == "TRAITS" && (!strings.Contains(c.Message, "TPM 1.2") || !strings.Contains(c.Message, "secret security user/deployment")) {
			t.Errorf("TRAITS: %s", c.Message)
		}
	}
}

// TestOwnerNova: 2026.2 computes report OWNER_NOVA, and the scheduler then
// requires it; a 2026.2 host without it takes no guest.
func TestOwnerNova(t *testing.T) {
	if ts := hostcheck.ExpectedTraits(nova.Hibiscus, false, nil, nil, false); len(ts) != 1 || ts[0] != "OWNER_NOVA" {
		t.Errorf("2026.2 expected traits without vTPM: %v", ts)
	}
	if ts := hostcheck.ExpectedTraits(nova.Gazpacho, false, nil, nil, false); len(ts) != 0 {
		t.Errorf("2026.1 reports no OWNER_NOVA: %v", ts)
	}
	hosts := []Host{{Host: "a", State: "up", Status: "enabled", Traits: []string{"COMPUTE_SECURITY_TPM_2_0"}}}
	for rel, want := range map[nova.Release]bool{nova.Gazpacho: false, nova.Hibiscus: true} {
		reps, _ := AuditHosts(rel, hosts, nil, nova.GuestList{})
		if got := findID(reps[0].Checks, "OWNER-NOVA") != nil; got != want {
			t.Errorf("%s: OWNER-NOVA check present = %v", rel, got)
		}
	}
	up := UpgradeImpact(nova.Gazpacho, nova.Hibiscus, hosts, nova.GuestList{})
	if len(up.Stranded) != 0 || !strings.Contains(strings.Join(up.Advice, " "), "OWNER_NOVA") {
		t.Errorf("upgrade to 2026.2: %+v", up)
	}
}

// TestOldComputeGatesHostModeLiveMigration: a pre-2026.1 compute in a
// 2026.1 cell makes Nova refuse host-mode live migration (VTPMOldCompute).
func TestOldComputeGatesHostModeLiveMigration(t *testing.T) {
	hosts := []Host{{Host: "a", Hypervisor: "a", State: "up", Status: "enabled"}}
	reps, _ := AuditHosts(nova.Gazpacho, hosts, map[string]hostcheck.Report{"a": {Host: "a", NovaRelease: nova.Epoxy}}, nova.GuestList{})
	c := findID(reps[0].Checks, "NOVA-RELEASE")
	if c == nil || !strings.Contains(c.Message, "Upgrade your nova-compute services to Gazpacho (33.0.0) or later.") {
		t.Errorf("%+v", reps[0].Checks)
	}
	reps, _ = AuditHosts(nova.Gazpacho, hosts, map[string]hostcheck.Report{"a": {Host: "a", NovaRelease: nova.Gazpacho}}, nova.GuestList{})
	if findID(reps[0].Checks, "NOVA-RELEASE") != nil {
		t.Errorf("same release: no finding: %+v", reps[0].Checks)
	}
}

// BenchmarkAuditFleet50k: 2,000 hosts, 50,000 vTPM guests; -benchmem's
// B/op is what the audit's result costs on top of the guest list.
func BenchmarkAuditFleet50k(b *testing.B) {
	traits := []string{"COMPUTE_SECURITY_TPM_1_2", "COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_CRB", "COMPUTE_SECURITY_TPM_TIS"}
	hosts := make([]Host, 2000)
	for i := range hosts {
		hosts[i] = Host{Host: fmt.Sprintf("cmp-%05d", i), State: "up", Status: "enabled", Traits: traits}
	}
	guests := make([]nova.VTPMGuest, 50000)
	for i := range guests {
		guests[i] = nova.VTPMGuest{ServerID: fmt.Sprintf("%036d", i), Name: fmt.Sprintf("vm-%06d", i), Host: hosts[i%len(hosts)].Host,
			Version: "2.0", Model: "tpm-crb", Mode: "user", ProjectID: "p", UserID: "u"}
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		reps, sum := AuditHosts(nova.Zed, hosts, nil, nova.NewGuestList(guests...))
		if len(reps) != 2000 || sum.AtRisk != 50000 || len(reps[0].AtRisk) != 25 {
			b.Fatalf("%d reports, %+v", len(reps), sum)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/50000, "ns/guest")
}

func findID(cs []hostcheck.Check, id string) *hostcheck.Check {
	for i := range cs {
		if cs[i].ID == id {
			return &cs[i]
		}
	}
	return nil
}

func find(r *HostReport, id string) hostcheck.Check {
	if c := findID(r.Checks, id); c != nil {
		return *c
	}
	return hostcheck.Check{ID: id, Status: "absent"}
}
