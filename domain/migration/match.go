package migration

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

// MatchRule is one rule that ties a planned VM to its target: an
// explicit "VM=SERVER" (a server name or ID; plan apply's rules name a
// boot volume), or a template naming the target from the VM ("{vm}-win",
// "{vcenter}-{vm}").
type MatchRule struct {
	VM, Server string
	Template   string
}

// MatchError is a match rule that is neither VM=TARGET nor a template
// that names the VM: the caller words it with its option's name and
// what its rules tie a VM to (Message).
type MatchError struct {
	Value string
	// Template: the value has braces, but does not name the VM with
	// {vm} or names something else ({name}).
	Template bool
}

func (e *MatchError) Error() string { return e.Message("match rule", "SERVER") }

// Message words the error: option is how the caller names a rule (its
// flag), target what a rule's right-hand side names (SERVER, VOLUME).
func (e *MatchError) Message(option, target string) string {
	if e.Template {
		return fmt.Sprintf("%s %q: a template names the server with {vm} (and optionally {vcenter}), e.g. {vm}-win", option, e.Value)
	}
	return fmt.Sprintf("%s %q: expected VM=%s or a template with {vm}", option, e.Value, target)
}

// ParseMatch reads one match rule; a *MatchError when it is none.
func ParseMatch(s string) (MatchRule, error) {
	if strings.Contains(s, "{") {
		rest := strings.NewReplacer("{vm}", "", "{vcenter}", "").Replace(s)
		if !strings.Contains(s, "{vm}") || strings.ContainsAny(rest, "{}") {
			return MatchRule{}, &MatchError{Value: s, Template: true}
		}
		return MatchRule{Template: s}, nil
	}
	vm, srv, ok := strings.Cut(s, "=")
	if !ok || vm == "" || srv == "" {
		return MatchRule{}, &MatchError{Value: s}
	}
	return MatchRule{VM: vm, Server: srv}, nil
}

// Expand is the name a template rule gives vm's target: {vm} is the VM's
// name, {vcenter} its vCenter's short host name.
func (r MatchRule) Expand(vm PlanVM) string {
	return strings.NewReplacer("{vm}", vm.Name, "{vcenter}", shortHost(vm.VCenter)).Replace(r.Template)
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
				m = Match{ServerIDs: byName[r.Expand(vm)], By: "template " + r.Template}
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
