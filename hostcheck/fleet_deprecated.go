// Deprecated: this file (and fleet_deprecated_audit.go,
// fleet_deprecated_checks.go) is the fleet audit as it was before it
// moved to package fleet (issue 21). It stays only while files of other
// owners still call it: hostcheck_test.go (AuditFleet, FleetHost),
// internal/output/results_test.go (Fleet), cmd/vtpmctl/
// host_integration_test.go (ListFleet, FleetHost, FleetSummary),
// internal/tools/scalebench (TPMTraits). Delete all three files when
// they use fleet.AuditHosts, fleet.Result, fleet.ListHosts, fleet.Host,
// fleet.Summary, fleet.TPMTraits.
package hostcheck

import (
	"context"
	"fmt"
	"net/http"
	"sort"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/hypervisors"
	"github.com/gophercloud/gophercloud/v2/openstack/placement/v1/resourceproviders"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/paging"
	"github.com/vtpmctl/vtpmctl/nova"
)

// FleetHost is one compute node as the APIs see it.
type FleetHost struct {
	Host       string   `json:"host"`       // nova-compute service host
	Hypervisor string   `json:"hypervisor"` // hypervisor_hostname = resource provider name
	RPUUID     string   `json:"resource_provider"`
	State      string   `json:"state"`  // up, down
	Status     string   `json:"status"` // enabled, disabled
	Traits     []string `json:"traits"` // TPM and secure boot traits in Placement
}

// TPMTraits are the traits the fleet audit reads from Placement.
var TPMTraits = []string{
	"COMPUTE_SECURITY_TPM_1_2", "COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_TIS", "COMPUTE_SECURITY_TPM_CRB",
	"COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER", "COMPUTE_SECURITY_TPM_SECRET_SECURITY_HOST",
	"COMPUTE_SECURITY_TPM_SECRET_SECURITY_DEPLOYMENT", "COMPUTE_SECURITY_UEFI_SECURE_BOOT", "OWNER_NOVA",
}

// ListFleet reads every hypervisor (one paginated list; compute >= 2.53 so
// IDs are the resource provider UUIDs) and the TPM traits of every
// provider with one `required=` list per trait, not one GET per provider.
// compute must be an admin's; placement needs microversion >= 1.18.
func ListFleet(ctx context.Context, compute, placement *gophercloud.ServiceClient) ([]FleetHost, error) {
	c := *compute
	c.Microversion = "2.53"
	var hosts []FleetHost
	err := hypervisors.List(&c, hypervisors.ListOpts{}).EachPage(paging.Guard(ctx, "hypervisor list"), func(_ context.Context, p pagination.Page) (bool, error) {
		l, err := hypervisors.ExtractHypervisors(p)
		for _, h := range l {
			hosts = append(hosts, FleetHost{Host: h.Service.Host, Hypervisor: h.HypervisorHostname, RPUUID: h.ID, State: h.State, Status: h.Status, Traits: []string{}})
		}
		return true, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing hypervisors (needs admin): %w", err)
	}
	pl := *placement
	pl.Microversion = "1.18"
	byRP := map[string]*FleetHost{}
	for i := range hosts {
		byRP[hosts[i].RPUUID] = &hosts[i]
	}
	for _, trait := range TPMTraits {
		pages, err := resourceproviders.List(&pl, resourceproviders.ListOpts{Required: trait}).AllPages(paging.Guard(ctx, "resource provider list"))
		if gophercloud.ResponseCodeIs(err, http.StatusBadRequest) {
			continue // "No such trait": an older os-traits; no provider can have it
		}
		if err != nil {
			return nil, fmt.Errorf("listing resource providers with %s: %w", trait, err)
		}
		rps, err := resourceproviders.ExtractResourceProviders(pages)
		if err != nil {
			return nil, err
		}
		for _, rp := range rps {
			if h := byRP[rp.UUID]; h != nil {
				h.Traits = append(h.Traits, trait)
			}
		}
	}
	for i := range hosts {
		sort.Strings(hosts[i].Traits)
	}
	sort.Slice(hosts, func(i, j int) bool { return hosts[i].Host < hosts[j].Host })
	return hosts, nil
}

// Capability says which guests the scheduler of a release can place on a
// host with these traits.
type Capability struct {
	TPM20    bool `json:"tpm_2_0"`   // a default 2.0 (TIS) guest
	CRB      bool `json:"crb"`       // a 2.0 CRB guest
	HostMode bool `json:"host_mode"` // a 2.0 host-mode guest (2026.1+)
}

// CapabilityOf applies the release's required traits to a host's traits.
func CapabilityOf(rel nova.Release, traits []string) Capability {
	can := func(model string, mode nova.SecretMode) bool {
		for _, t := range nova.RequiredTraits(rel, "2.0", model, mode) {
			if !contains(traits, t) {
				return false
			}
		}
		return true
	}
	var mode nova.SecretMode
	if rel.HasSecretSecurity() {
		mode = nova.SecretUser
	}
	c := Capability{TPM20: can("tpm-tis", mode), CRB: can("tpm-crb", mode)}
	if rel.HasSecretSecurity() {
		c.HostMode = can("tpm-tis", nova.SecretHost) || can("tpm-crb", nova.SecretHost)
	}
	return c
}

// FleetSummary counts the hosts that are up, enabled and able.
type FleetSummary struct {
	Hosts    int `json:"hosts"`
	Usable   int `json:"up_and_enabled"`
	TPM20    int `json:"can_take_tpm_2_0"`
	CRB      int `json:"can_take_crb"`
	HostMode int `json:"can_take_host_mode"`
	Failing  int `json:"hosts_failing"`
	AtRisk   int `json:"vtpm_guests_at_risk"`
}

// FleetSchema names the JSON of `hosts audit`.
const FleetSchema = "vtpmctl.hosts-audit/1"

// Fleet is the result of `hosts audit`: every host, its Placement traits,
// its findings (Reports, in the order of Hosts) and the summary.
type Fleet struct {
	Schema string `json:"schema"`
	nova.ReleaseContext
	Summary FleetSummary  `json:"summary"`
	Hosts   []FleetHost   `json:"hosts"`
	Reports []FleetReport `json:"reports"`
}

// NewFleet assembles the audit's result.
func NewFleet(rel nova.Release, hosts []FleetHost, reports []FleetReport, sum FleetSummary) *Fleet {
	return &Fleet{Schema: FleetSchema, ReleaseContext: nova.ReleaseContext{Release: rel}, Summary: sum, Hosts: hosts, Reports: reports}
}

// Table is one row per host.
func (f *Fleet) Table() output.Table {
	t := output.Table{Columns: []string{"host", "hypervisor", "state", "tpm_2_0", "crb", "host_mode", "traits", "findings"}}
	for i, h := range f.Hosts {
		var findings []string
		if i < len(f.Reports) {
			for _, c := range f.Reports[i].Checks {
				if c.Status != Pass {
					findings = append(findings, fmt.Sprintf("%s %s: %s", c.Status, c.ID, c.Message))
				}
			}
		}
		capab := CapabilityOf(f.Release, h.Traits)
		t.Rows = append(t.Rows, output.Record{{Name: "host", Value: h.Host}, {Name: "hypervisor", Value: h.Hypervisor},
			{Name: "state", Value: h.State + "/" + h.Status}, {Name: "tpm_2_0", Value: capab.TPM20}, {Name: "crb", Value: capab.CRB},
			{Name: "host_mode", Value: capab.HostMode}, {Name: "traits", Value: h.Traits}, {Name: "findings", Value: findings}})
	}
	s := f.Summary
	t.Footer = []string{fmt.Sprintf("%d host(s), %d up and enabled; can take TPM 2.0: %d, CRB: %d, host mode: %d; vTPM guests that cannot be evacuated: %d; failing: %d (scheduler: Nova %s)",
		s.Hosts, s.Usable, s.TPM20, s.CRB, s.HostMode, s.AtRisk, s.Failing, nova.Label(f.Release, f.Candidates))}
	return t
}

// FleetReport is a host as the (deprecated) fleet audit sees it.
type FleetReport struct {
	Report
	AtRisk []RiskGuest `json:"at_risk_guests,omitempty"`
}

// RiskGuest is a vTPM guest on a host, as the fleet audit sees it.
type RiskGuest struct {
	ServerID  string          `json:"server_id"`
	Name      string          `json:"name"`
	Owner     string          `json:"owner"`
	Project   string          `json:"project"`
	Mode      nova.SecretMode `json:"mode"`
	StateKept string          `json:"vtpm_state_kept,omitempty"`
}
