package barbican

import (
	"context"
	"fmt"
	"sort"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/parallel"
)

// ProtectSchema names the JSON of `secrets protect`.
const ProtectSchema = "vtpmctl.secrets-protect/1"

// What protect did, or would do, with a secret.
const (
	ActRegistered    = "registered"
	ActWouldRegister = "would register"
	ActAlready       = "already protected"
	ActNotProtected  = "not protected"
	ActFailed        = "failed"
)

// ProtectAction is one guest's secret, or one orphan, and its outcome.
type ProtectAction struct {
	ServerID   string `json:"server_id"`
	ServerName string `json:"server_name,omitempty"`
	ProjectID  string `json:"project_id"` // the secret's (its token writes)
	SecretID   string `json:"secret_id,omitempty"`
	Action     string `json:"action"`
	Detail     string `json:"detail,omitempty"`
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
	Schema        string            `json:"schema"`
	KeyManagerAPI string            `json:"key_manager_api"`
	DryRun        bool              `json:"dry_run"`
	Secrets       []ProtectAction   `json:"secrets"`
	NotAuditable  map[string]string `json:"not_auditable"`
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
	for _, s := range f.Secrets {
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
		case hasConsumer(s.Consumers, NovaConsumer(g.ServerID)):
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
	out.count()
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
		if f.Status != "pass" {
			return f.Check + ": " + f.Message
		}
	}
	return "no secret found"
}

func hasConsumer(cs []Consumer, want Consumer) bool {
	for _, c := range cs {
		if c == want {
			return true
		}
	}
	return false
}

// Protect registers Nova's consumer on every secret planned for it, with
// a token of the secret's project (km, which should remember its clients),
// limit at once. A failed write is that secret's, reported on it.
func Protect(ctx context.Context, r *ProtectResult, km func(context.Context, string) (*gophercloud.ServiceClient, error), limit int) {
	writeConsumers(ctx, r.Secrets, km, limit, ActWouldRegister, ActRegistered, AddConsumer)
	r.count()
}

// writeConsumers runs write (add or remove Nova's consumer) on every
// secret whose action is planned, with a token of the secret's project,
// limit at once: the action becomes done, or ActFailed with the error on
// that secret. What protect and unprotect share.
func writeConsumers(ctx context.Context, secrets []ProtectAction, km func(context.Context, string) (*gophercloud.ServiceClient, error), limit int,
	planned, done string, write func(context.Context, *gophercloud.ServiceClient, string, Consumer) error) {
	var idx []int
	for i, a := range secrets {
		if a.Action == planned {
			idx = append(idx, i)
		}
	}
	parallel.Do(ctx, len(idx), limit, func(ctx context.Context, j int) error {
		a := &secrets[idx[j]]
		c, err := km(ctx, a.ProjectID)
		if err == nil {
			err = write(ctx, c, a.SecretID, NovaConsumer(a.ServerID))
		}
		if err != nil {
			a.Action, a.Detail = ActFailed, oneLine(err)
		} else {
			a.Action = done
		}
		return nil
	})
}

func (r *ProtectResult) count() {
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

// Table is one row per secret; projects not audited and the summary follow.
func (r *ProtectResult) Table() output.Table {
	t := output.Table{Key: "secrets", Columns: []string{"server", "project", "secret", "action", "detail"}}
	for _, a := range r.Secrets {
		srv := a.ServerID
		if a.ServerName != "" {
			srv = a.ServerName + " (" + a.ServerID + ")"
		}
		t.Rows = append(t.Rows, output.Record{{Name: "server", Value: srv}, {Name: "project", Value: a.ProjectID}, {Name: "secret", Value: a.SecretID},
			{Name: "action", Value: a.Action}, {Name: "detail", Value: a.Detail}})
	}
	var na []string
	for p, why := range r.NotAuditable {
		na = append(na, "not auditable: "+p+": "+why)
	}
	sort.Strings(na)
	t.Footer = append(t.Footer, na...)
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
