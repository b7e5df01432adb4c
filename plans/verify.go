package plans

import (
	"fmt"
	"sort"
	"strings"

	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/result"
	"github.com/vtpmctl/vtpmctl/nova"
)

// VerifySchema names the JSON of `plan verify`.
const VerifySchema = "vtpmctl.plan-verify/1"

// Verdict of one planned VM after cutover.
const (
	Verified = "verified"  // the server has what the plan promised
	Missing  = "missing"   // a promise is not kept
	NotFound = "not found" // no server by the VM's name
)

// VMVerdict is what the cloud shows for one planned VM.
type VMVerdict struct {
	VM       string   `json:"vm"`
	ServerID string   `json:"server_id,omitempty"`
	Verdict  string   `json:"verdict"`
	Promised string   `json:"promised_vtpm"` // the plan's target_vtpm
	Actual   string   `json:"actual_vtpm"`   // what Nova gives the server
	Findings []string `json:"findings,omitempty"`
	Remedy   string   `json:"remedy,omitempty"`
	// EscrowUnconfirmed: bitlocker_escrow is still "unconfirmed" in the plan.
	EscrowUnconfirmed bool `json:"bitlocker_escrow_unconfirmed,omitempty"`
}

// VerifyResult is `plan verify`'s typed result.
type VerifyResult struct {
	Schema   string      `json:"schema"`
	Release  string      `json:"nova_release"`
	VMs      []VMVerdict `json:"vms"`
	Verified int         `json:"verified"`
	Missing  int         `json:"missing"`
	NotFound int         `json:"not_found"`
	// Unconfirmed lists the VMs whose BitLocker escrow the team has not
	// confirmed in the plan.
	Unconfirmed []string `json:"bitlocker_escrow_unconfirmed"`
}

// Failed: something promised is missing or a VM has no server.
func (r *VerifyResult) Failed() bool { return r.Missing+r.NotFound > 0 }

// Verify checks each planned VM against the servers Nova holds: found by
// name, its vTPM (version and model, as Nova decides from its flavor and
// image for the cloud's release) what the plan promised.
func Verify(p *Plan, inv nova.Inventory, rel nova.Release) VerifyResult {
	res := VerifyResult{Schema: VerifySchema, Release: rel.String(), VMs: []VMVerdict{}, Unconfirmed: []string{}}
	byName := map[string][]string{} // name -> server IDs
	vtpm := map[string]nova.VTPMGuest{}
	for _, g := range inv.Guests {
		byName[g.Name] = append(byName[g.Name], g.ServerID)
		vtpm[g.ServerID] = g
	}
	for id, o := range inv.Others {
		byName[o.Name] = append(byName[o.Name], id)
	}
	for _, vm := range p.VMs {
		v := VMVerdict{VM: vm.Name, Promised: vm.TargetVTPM, EscrowUnconfirmed: vm.BitLockerEscrow == "unconfirmed"}
		if v.EscrowUnconfirmed {
			res.Unconfirmed = append(res.Unconfirmed, vm.Name)
		}
		ids := byName[vm.Name]
		sort.Strings(ids)
		switch {
		case len(ids) == 0:
			v.Verdict, v.Remedy = NotFound, "create the server "+vm.Name+" from image "+vm.TargetImage+" and flavor "+vm.TargetFlavor
			res.NotFound++
			res.VMs = append(res.VMs, v)
			continue
		case len(ids) > 1:
			v.Findings = append(v.Findings, fmt.Sprintf("%d servers are named %s; verified %s, the first by ID", len(ids), vm.Name, ids[0]))
		}
		v.ServerID = ids[0]
		v.Actual = "none"
		if g, ok := vtpm[v.ServerID]; ok {
			v.Actual = g.Version + " " + g.Model
		}
		switch {
		case v.Actual == vm.TargetVTPM:
			v.Verdict = Verified
			res.Verified++
		case vm.TargetVTPM == "none":
			v.Verdict = Verified
			v.Findings = append(v.Findings, "the server has a vTPM ("+v.Actual+") the plan did not ask for")
			res.Verified++
		default:
			v.Verdict = Missing
			v.Findings = append(v.Findings, fmt.Sprintf("the plan promised vTPM %s; Nova gives this server %s", vm.TargetVTPM, v.Actual))
			v.Remedy = fmt.Sprintf("resize the server to flavor %s (or tag image %s with vtpmctl image set) and hard-reboot it; a vTPM added now starts blank", vm.TargetFlavor, vm.TargetImage)
			res.Missing++
		}
		res.VMs = append(res.VMs, v)
	}
	return res
}

// Table is one row per planned VM.
func (r *VerifyResult) Table() output.Table {
	t := output.Table{Columns: []string{"vm", "verdict", "promised_vtpm", "actual_vtpm", "server_id", "findings", "remedy"}}
	for _, v := range r.VMs {
		f := v.Findings
		if v.EscrowUnconfirmed {
			f = append(append([]string{}, f...), "BitLocker escrow not confirmed in the plan")
		}
		t.Rows = append(t.Rows, output.Record{{Name: "vm", Value: v.VM}, {Name: "verdict", Value: v.Verdict}, {Name: "promised_vtpm", Value: v.Promised},
			{Name: "actual_vtpm", Value: v.Actual}, {Name: "server_id", Value: v.ServerID}, {Name: "findings", Value: f}, {Name: "remedy", Value: v.Remedy}})
	}
	t.Footer = append(t.Footer, fmt.Sprintf("%d verified, %d missing, %d not found; BitLocker escrow unconfirmed: %s (Nova %s)",
		r.Verified, r.Missing, r.NotFound, orNone(r.Unconfirmed), r.Release))
	return t
}

func orNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}

// Suites is the JUnit view: one case per planned VM.
func (r *VerifyResult) Suites() []result.Suite {
	s := result.Suite{Name: "plan verify", Class: "vtpmctl.plan.verify"}
	for _, v := range r.VMs {
		st := result.Pass
		if v.Verdict != Verified {
			st = result.Fail
		}
		msg := strings.Join(append([]string{v.Verdict}, v.Findings...), "; ")
		s.Cases = append(s.Cases, result.Case{Name: v.VM, Status: st, Message: msg, Remedy: v.Remedy})
	}
	return []result.Suite{s}
}
