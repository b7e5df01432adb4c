package vtpmsecret

import (
	"fmt"
	"sort"
	"strings"

	"github.com/vtpmctl/vtpmctl/internal/output"
)

// UnprotectSchema names the JSON of `secrets unprotect`.
const UnprotectSchema = "vtpmctl.secrets-unprotect/1"

// What unprotect did, or would do, with a secret.
const (
	ActRemoved     Act = "removed"
	ActWouldRemove Act = "would remove"
	// ActUnprotected: no consumer of Nova's for its server to remove (a
	// rerun, or never protected).
	ActUnprotected Act = "not protected"
)

// UnprotectSummary counts the actions; Removed are the writes made.
type UnprotectSummary struct {
	Removed      int `json:"removed"`
	WouldRemove  int `json:"would_remove"`
	NotProtected int `json:"not_protected"`
	Failed       int `json:"failed"`
}

// UnprotectResult is the JSON of `secrets unprotect`: one row per vTPM
// secret of the audited projects (of the servers asked for, when only).
type UnprotectResult struct {
	Schema        string                  `json:"schema"`
	KeyManagerAPI string                  `json:"key_manager_api"`
	DryRun        bool                    `json:"dry_run"`
	Secrets       []ProtectAction         `json:"secrets"`
	NotAuditable  map[string]NotAuditable `json:"not_auditable"`
	// Unmatched are the servers asked for that no vTPM secret of the
	// audited projects names.
	Unmatched []string         `json:"unmatched_servers,omitempty"`
	Summary   UnprotectSummary `json:"summary"`
}

// PlanUnprotect decides, from the audit's facts, which secret loses
// Nova's consumer: every secret named for a server that carries
// nova/instance/<that server> (a guest's secret, a duplicate, an
// orphan's: each blocks Nova's own delete). A consumer of anything else
// stays, and the row says Nova's delete is still refused while it does
// (Barbican refuses a delete while any consumer is left). only, when
// non-nil, limits the plan to these servers' secrets. Pure.
func PlanUnprotect(f Facts, res Result, dryRun bool, only map[string]bool) UnprotectResult {
	out := UnprotectResult{Schema: UnprotectSchema, KeyManagerAPI: f.API.String(), DryRun: dryRun, Secrets: []ProtectAction{}, NotAuditable: res.NotAuditable}
	names := map[string]string{}
	for _, g := range res.Guests {
		names[g.ServerID] = g.Name
	}
	seen := map[string]bool{}
	for _, s := range f.Secrets.All() {
		if only != nil && !only[s.InstanceID] {
			continue
		}
		seen[s.InstanceID] = true
		a := ProtectAction{ServerID: s.InstanceID, ServerName: names[s.InstanceID], ProjectID: s.ProjectID, SecretID: s.ID, Action: ActUnprotected}
		var others []Consumer
		for _, c := range s.Consumers {
			if !c.IsNovaFor(s.InstanceID) {
				others = append(others, c)
			}
		}
		if c, ok := novaConsumerOf(s.Consumers, s.InstanceID); ok {
			a.Action = ActWouldRemove
			if c != NovaConsumer(s.InstanceID) {
				a.stored = &c
			}
		}
		if len(others) > 0 {
			a.Detail = "other consumer(s) stay, and Nova's delete of the secret is refused while they do: " + consumerList(others)
		}
		out.Secrets = append(out.Secrets, a)
	}
	sort.SliceStable(out.Secrets, func(i, j int) bool {
		a, b := out.Secrets[i], out.Secrets[j]
		if a.ProjectID != b.ProjectID {
			return a.ProjectID < b.ProjectID
		}
		if a.ServerID != b.ServerID {
			return a.ServerID < b.ServerID
		}
		return a.SecretID < b.SecretID
	})
	for id := range only {
		if !seen[id] {
			out.Unmatched = append(out.Unmatched, id)
		}
	}
	sort.Strings(out.Unmatched)
	out.Recount()
	return out
}

// Recount counts the actions again (after the writes).
func (r *UnprotectResult) Recount() {
	r.Summary = UnprotectSummary{}
	for _, a := range r.Secrets {
		switch a.Action {
		case ActRemoved:
			r.Summary.Removed++
		case ActWouldRemove:
			r.Summary.WouldRemove++
		case ActFailed:
			r.Summary.Failed++
		default:
			r.Summary.NotProtected++
		}
	}
}

// Table is one row per secret; projects not audited and the summary follow.
func (r *UnprotectResult) Table() output.Table {
	t := output.Table{Key: "secrets", Columns: protectColumns, Wrap: []string{"detail"}}
	for _, a := range r.Secrets {
		t.Rows = append(t.Rows, a.record())
	}
	t.Footer = append(t.Footer, notAuditableFooter(r.NotAuditable)...)
	s := r.Summary
	t.Footer = append(t.Footer, fmt.Sprintf("removed %d, would remove %d, not protected %d, failed %d (consumer nova/instance/<server>; key-manager API %s)",
		s.Removed, s.WouldRemove, s.NotProtected, s.Failed, r.KeyManagerAPI))
	if len(r.Unmatched) > 0 {
		t.Footer = append(t.Footer, "no vTPM secret in the audited projects names server(s) "+strings.Join(r.Unmatched, ", "))
	}
	return t
}
