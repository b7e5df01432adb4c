package hostcheck

import (
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/nova"
)

func TestAuditFleet(t *testing.T) {
	zedTraits := []string{"COMPUTE_SECURITY_TPM_1_2", "COMPUTE_SECURITY_TPM_2_0"}
	newTraits := []string{"COMPUTE_SECURITY_TPM_1_2", "COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_CRB", "COMPUTE_SECURITY_TPM_TIS",
		"COMPUTE_SECURITY_TPM_SECRET_SECURITY_HOST", "COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER"}
	cases := []struct {
		name   string
		rel    nova.Release
		host   FleetHost
		report *Report
		id     string
		status Status
		msg    string
	}{
		{"zed host on zed", nova.Zed, FleetHost{Host: "a", State: "up", Status: "enabled", Traits: zedTraits}, nil, "TRAITS", Pass, "TPM 2.0 (TIS), TPM 2.0 (CRB)"},
		{"zed host under a 2024.2 scheduler", nova.Dalmatian, FleetHost{Host: "a", State: "up", Status: "enabled", Traits: zedTraits}, nil, "STALE-TRAITS", Fail, "older than 2024.2"},
		{"2025.2 host under a 2026.1 scheduler", nova.Gazpacho, FleetHost{Host: "a", State: "up", Status: "enabled", Traits: newTraits[:4]}, nil, "TRAITS", Fail, "missing COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER"},
		{"host mode on 2026.1", nova.Gazpacho, FleetHost{Host: "a", State: "up", Status: "enabled", Traits: newTraits}, nil, "TRAITS", Pass, "host mode"},
		{"swtpm turned off leaves secret traits", nova.Gazpacho, FleetHost{Host: "a", State: "up", Status: "enabled", Traits: []string{"COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER"}}, nil, "STALE-TRAITS", Fail, "Nova never removes"},
		{"not a vTPM host", nova.Zed, FleetHost{Host: "a", State: "up", Status: "enabled", Traits: []string{}}, nil, "TRAITS", Warn, "not a vTPM host"},
		{"down host", nova.Zed, FleetHost{Host: "a", State: "down", Status: "enabled", Traits: zedTraits}, nil, "SERVICE", Warn, "cannot be evacuated"},
		{"drift: config gives more", nova.Zed, FleetHost{Host: "a", Hypervisor: "a.example", State: "up", Status: "enabled", Traits: zedTraits[:1]},
			&Report{Host: "a", Traits: zedTraits, Checks: []Check{}}, "CONFIG-DRIFT", Fail, "Placement lacks it"},
		{"drift: none", nova.Zed, FleetHost{Host: "a", Hypervisor: "a.example", State: "up", Status: "enabled", Traits: zedTraits},
			&Report{Host: "a", Traits: zedTraits, Checks: []Check{}}, "CONFIG-DRIFT", Pass, "matches"},
	}
	for _, c := range cases {
		reports := map[string]Report{}
		if c.report != nil {
			reports[c.host.Hypervisor] = *c.report
		}
		reps, _ := AuditFleet(c.rel, []FleetHost{c.host}, reports)
		got := find(&reps[0], c.id)
		if got.Status != c.status || !strings.Contains(got.Message, c.msg) {
			t.Errorf("%s: %s %s %q, want %s containing %q", c.name, c.id, got.Status, got.Message, c.status, c.msg)
		}
	}
}

func TestFleetSummary(t *testing.T) {
	hosts := []FleetHost{
		{Host: "a", State: "up", Status: "enabled", Traits: []string{"COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_TIS"}},
		{Host: "b", State: "up", Status: "enabled", Traits: []string{"COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_CRB", "COMPUTE_SECURITY_TPM_TIS"}},
		{Host: "c", State: "up", Status: "disabled", Traits: []string{"COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_CRB", "COMPUTE_SECURITY_TPM_TIS"}},
	}
	_, sum := AuditFleet(nova.Dalmatian, hosts, nil)
	if sum.Hosts != 3 || sum.Usable != 2 || sum.TPM20 != 2 || sum.CRB != 1 || sum.HostMode != 0 {
		t.Errorf("summary %+v", sum)
	}
}
