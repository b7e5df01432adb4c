package vtpmsecret

import (
	"fmt"
	"sort"

	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// ProtectSchema names the JSON of `secrets protect`.
const ProtectSchema = "vtpmctl.secrets-protect/1"

// Act is what protect or unprotect did, or would do, with a secret.
type Act string

// What protect did, or would do, with a secret.
const (
	ActRegistered    Act = "registered"
	ActWouldRegister Act = "would register"
	ActAlready       Act = "already protected"
	ActNotProtected  Act = "not protected"
	ActFailed        Act = "failed"
)

// ProtectAction is one guest's secret, or one orphan, and its outcome.
type ProtectAction struct {
	ServerID   string `json:"server_id"`
	ServerName string `json:"server_name,omitempty"`
	ProjectID  string `json:"project_id"` // the secret's (its token writes)
	SecretID   string `json:"secret_id,omitempty"`
	Action     Act    `json:"action"`
	Detail     string `json:"detail,omitempty"`
	// stored is Nova's consumer as Barbican holds it (unprotect's: a
	// removal names it so), when its form is not NovaConsumer's.
	stored *Consumer
}

// Consumer is the consumer the action writes: Nova's for its server, as
// Barbican holds it when it is there.
func (a ProtectAction) Consumer() Consumer {
	if a.stored != nil {
		return *a.stored
	}
	return NovaConsumer(a.ServerID)
}

// ProtectSummary counts the actions; Registered are the writes made.
type ProtectSummary struct {
	Registered    int `json:"registered"`
	WouldRegister int `json:"would_register"`
	Already       int `json:"already_protected"`
	NotProtected  int `json:"not_protected"`
	Failed        int `json:"failed"`
}

// ProtectResult is the JSON of `secrets protect`.
type ProtectResult struct {
	Schema        string                  `json:"schema"`
	KeyManagerAPI string                  `json:"key_manager_api"`
	DryRun        bool                    `json:"dry_run"`
	Secrets       []ProtectAction         `json:"secrets"`
	NotAuditable  map[string]NotAuditable `json:"not_auditable"`
	// Unmatched are the servers asked for (only) that are neither a vTPM
	// guest nor a secret's instance in the audited projects.
	Unmatched []string       `json:"unmatched_servers,omitempty"`
	Summary   ProtectSummary `json:"summary"`
	// BeforeDelete is the caller's command that removes the consumer
	// before a protected guest is deleted (the caller knows its own
	// spelling); shown under the table, set only where a secret is (or
	// would be) protected.
	BeforeDelete string `json:"before_server_delete,omitempty"`
}

// PlanProtect decides, from the audit's facts and result, which secret
// gets Nova's consumer: a guest's one secret that lacks it. A guest with
// several secrets (only one is in use), without one, or not auditable,
// and every orphan, is not protected and says why. only, when non-nil,
// limits the plan to these servers. Pure.
func PlanProtect(f Facts, res Result, dryRun bool, only map[string]bool) ProtectResult {
	out := ProtectResult{Schema: ProtectSchema, KeyManagerAPI: f.API.String(), DryRun: dryRun, Secrets: []ProtectAction{}, NotAuditable: res.NotAuditable}
	byID := map[string]Secret{}
	perInstance := map[string]int{}
	for _, s := range f.Secrets.All() {
		byID[s.ID] = s
		perInstance[s.InstanceID]++
	}
	for _, g := range res.Guests {
		if only != nil && !only[g.ServerID] {
			continue
		}
		a := ProtectAction{ServerID: g.ServerID, ServerName: g.Name, ProjectID: g.ProjectID, SecretID: g.SecretID, Action: ActNotProtected}
		s, ok := byID[g.SecretID]
		switch {
		case !ok:
			a.Detail = firstFinding(g)
		case perInstance[g.ServerID] > 1:
			a.Detail = fmt.Sprintf("%d secrets for this server: find the one in the domain's <encryption secret> (virsh dumpxml) and delete the others first", perInstance[g.ServerID])
		case hasNovaConsumer(s.Consumers, g.ServerID):
			a.ProjectID, a.Action = s.ProjectID, ActAlready
		default:
			a.ProjectID, a.Action = s.ProjectID, ActWouldRegister
			if g.Protection == Mismatched {
				a.Detail = "its other nova/instance consumer stays: see secrets audit"
			}
		}
		out.Secrets = append(out.Secrets, a)
	}
	guests := guestIndex(res)
	for _, o := range res.Orphans {
		if guests[o.InstanceID] || only != nil && !only[o.InstanceID] {
			continue // a duplicate: its guest's row says so
		}
		what := "orphan: "
		if o.Kind == OrphanUndetermined {
			what = "undetermined: "
		}
		out.Secrets = append(out.Secrets, ProtectAction{ServerID: o.InstanceID, ProjectID: o.ProjectID, SecretID: o.ID, Action: ActNotProtected,
			Detail: what + o.Reason})
	}
	seen := map[string]bool{}
	for _, a := range out.Secrets {
		seen[a.ServerID] = true
	}
	for id := range only {
		if !seen[id] {
			out.Unmatched = append(out.Unmatched, id)
		}
	}
	sort.Strings(out.Unmatched)
	out.Recount()
	return out
}

func guestIndex(res Result) map[string]bool {
	m := make(map[string]bool, len(res.Guests))
	for _, g := range res.Guests {
		m[g.ServerID] = true
	}
	return m
}

func firstFinding(g GuestResult) string {
	for _, f := range g.Findings {
		if f.Status != result.Pass {
			return string(f.Check) + ": " + f.Message
		}
	}
	return "no secret found"
}

func hasNovaConsumer(cs []Consumer, serverID string) bool {
	_, ok := novaConsumerOf(cs, serverID)
	return ok
}

// Recount counts the actions again (after the writes).
func (r *ProtectResult) Recount() {
	r.Summary = ProtectSummary{}
	for _, a := range r.Secrets {
		switch a.Action {
		case ActRegistered:
			r.Summary.Registered++
		case ActWouldRegister:
			r.Summary.WouldRegister++
		case ActAlready:
			r.Summary.Already++
		case ActFailed:
			r.Summary.Failed++
		default:
			r.Summary.NotProtected++
		}
	}
}

// protectColumns are a protect or unprotect row's: its JSON keys.
var protectColumns = []string{"server_id", "server_name", "project_id", "secret_id", "action", "detail"}

// record is the action's row: raw fields (protectColumns).
func (a ProtectAction) record() output.Record {
	return output.Record{{Name: "server_id", Value: a.ServerID}, {Name: "server_name", Value: a.ServerName}, {Name: "project_id", Value: a.ProjectID},
		{Name: "secret_id", Value: a.SecretID}, {Name: "action", Value: a.Action}, {Name: "detail", Value: a.Detail}}
}

// Table is one row per secret; projects not audited and the summary follow.
func (r *ProtectResult) Table() output.Table {
	t := output.Table{Key: "secrets", Columns: protectColumns, Wrap: []string{"detail"}}
	for _, a := range r.Secrets {
		t.Rows = append(t.Rows, a.record())
	}
	t.Footer = append(t.Footer, notAuditableFooter(r.NotAuditable)...)
	s := r.Summary
	t.Footer = append(t.Footer, fmt.Sprintf("registered %d, would register %d, already protected %d, not protected %d, failed %d (consumer nova/instance/<server>; key-manager API %s)",
		s.Registered, s.WouldRegister, s.Already, s.NotProtected, s.Failed, r.KeyManagerAPI))
	if s.Registered+s.WouldRegister+s.Already > 0 {
		t.Footer = append(t.Footer, "note: "+NovaDeleteNote+": "+RemoveCommand("<secret>", NovaConsumer("<server>")))
	}
	if r.BeforeDelete != "" {
		t.Footer = append(t.Footer, "before deleting a protected guest: "+r.BeforeDelete)
	}
	return t
}
