package plans

import (
	"fmt"
	"sort"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// SourceKey is the metadata key that ties a server (its own metadata) or
// its image (stamped by plan apply) to the source VM it came from.
const SourceKey = "vtpmctl:source"

// Source is the VM's identity across vCenters: vCenter host name and MoRef
// (unique within a vCenter), else its BIOS UUID, else its name.
func (vm PlanVM) Source() string {
	id := vm.MoRef
	if id == "" {
		id = vm.BIOSUUID
	}
	if id == "" {
		return vm.Name
	}
	if h := hostOf(vm.VCenter); h != "" {
		return h + "/" + id
	}
	return id
}

// MatchRule is one --match: an explicit "VM=SERVER" (a server name or
// ID), or a template naming the server from the VM ("{vm}-win",
// "{vcenter}-{vm}").
type MatchRule struct {
	VM, Server string
	Template   string
}

// ParseMatch reads one --match value.
func ParseMatch(s string) (MatchRule, error) {
	if strings.Contains(s, "{") {
		rest := strings.NewReplacer("{vm}", "", "{vcenter}", "").Replace(s)
		if !strings.Contains(s, "{vm}") || strings.ContainsAny(rest, "{}") {
			return MatchRule{}, fmt.Errorf("--match %q: a template names the server with {vm} (and optionally {vcenter}), e.g. {vm}-win", s)
		}
		return MatchRule{Template: s}, nil
	}
	vm, srv, ok := strings.Cut(s, "=")
	if !ok || vm == "" || srv == "" {
		return MatchRule{}, fmt.Errorf("--match %q: expected VM=SERVER or a template with {vm}", s)
	}
	return MatchRule{VM: vm, Server: srv}, nil
}

// Match is the server found for a planned VM, and how.
type Match struct {
	ServerIDs []string // sorted; the first is the one verified
	By        string   // "match rule", "server metadata", "image metadata", "template", "name"
}

// MatchServers finds each planned VM's servers, trying in turn: an
// explicit rule, the server's vtpmctl:source metadata, its image's
// vtpmctl:source (stamped by plan apply), templates, then the VM's name.
// The key is the plan's VM index.
func MatchServers(p *Plan, inv nova.Inventory, rules []MatchRule) map[int]Match {
	byName, byMeta, byImage := map[string][]string{}, map[string][]string{}, map[string][]string{}
	for id, s := range inv.Servers {
		byName[s.Name] = append(byName[s.Name], id)
		if v := s.Metadata[SourceKey]; v != "" {
			byMeta[v] = append(byMeta[v], id)
		}
		if s.Image != nil {
			if v := s.Image.Properties[SourceKey]; v != "" {
				byImage[v] = append(byImage[v], id)
			}
		}
		// A volume-backed server: its boot volume, stamped by plan apply.
		if s.BootVolume != nil {
			if v := s.BootVolume.Properties[SourceKey]; v != "" {
				byImage[v] = append(byImage[v], id)
			}
		}
	}
	out := map[int]Match{}
	for i, vm := range p.VMs {
		var m Match
		for _, r := range rules {
			if r.VM == vm.Name {
				if _, ok := inv.Servers[r.Server]; ok {
					m = Match{ServerIDs: []string{r.Server}, By: "match rule"}
				} else {
					m = Match{ServerIDs: byName[r.Server], By: "match rule"}
				}
			}
		}
		if len(m.ServerIDs) == 0 {
			m = Match{ServerIDs: byMeta[vm.Source()], By: "server metadata " + SourceKey}
		}
		if len(m.ServerIDs) == 0 {
			m = Match{ServerIDs: byImage[vm.Source()], By: "image metadata " + SourceKey}
		}
		for _, r := range rules {
			if len(m.ServerIDs) == 0 && r.Template != "" {
				name := strings.NewReplacer("{vm}", vm.Name, "{vcenter}", shortHost(vm.VCenter)).Replace(r.Template)
				m = Match{ServerIDs: byName[name], By: "template " + r.Template}
			}
		}
		if len(m.ServerIDs) == 0 {
			m = Match{ServerIDs: byName[vm.Name], By: "name"}
		}
		if len(m.ServerIDs) == 0 {
			continue
		}
		m.ServerIDs = append([]string(nil), m.ServerIDs...)
		sort.Strings(m.ServerIDs)
		out[i] = m
	}
	return out
}
