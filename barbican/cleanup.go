package barbican

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/completeness"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/quote"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
)

// CleanupSchema names the JSON of `secrets audit --cleanup-plan -f json`.
const CleanupSchema = "vtpmctl.secrets-cleanup-plan/1"

// What a cleanup plan does with an orphan.
const (
	CleanupDelete = "delete"
	CleanupKeep   = "keep"
)

// CleanupStep is one orphan and what the plan does with it. Command is
// the delete line, only for a secret whose instance is gone.
type CleanupStep struct {
	SecretID   string     `json:"secret_id"`
	SecretRef  string     `json:"secret_ref,omitempty"`
	InstanceID string     `json:"instance_id"`
	ProjectID  string     `json:"project_id"`
	CreatorID  string     `json:"creator_id"`
	Age        string     `json:"age"`
	Kind       OrphanKind `json:"kind"`
	// Existence is Nova's answer for the instance (a candidate's only).
	Existence nova.Existence `json:"existence,omitempty"`
	Action    string         `json:"action"`
	Reason    string         `json:"reason"`
	Command   string         `json:"command,omitempty"`
	// comment is the script's line(s) for this step, in Nova's words.
	comment string
}

// CleanupPlan is what --cleanup-plan prints: the orphans and the delete
// commands for those whose instance Nova says is gone. Nothing is deleted.
type CleanupPlan struct {
	Schema     string    `json:"schema"`
	Cloud      string    `json:"cloud,omitempty"`
	Generated  time.Time `json:"generated"`
	SecretsURL string    `json:"secrets_url"`
	// NotAuditable projects: their orphans are not in the plan.
	NotAuditable map[string]string `json:"not_auditable"`
	// Proof says how each delete was proven, and what blocked the rest.
	Proof CleanupProof  `json:"proof"`
	Steps []CleanupStep `json:"steps"`
}

// CleanupProof is what the plan's deletes rest on: Nova's answer for
// each candidate instance's UUID, and the reads that were partial.
type CleanupProof struct {
	// Method is how an instance is proven gone, in words.
	Method string `json:"method"`
	// ComputeEndpoint is the Nova asked (one region's).
	ComputeEndpoint string `json:"compute_endpoint,omitempty"`
	Asked           int    `json:"asked"`
	Gone            int    `json:"gone"`
	Exists          int    `json:"exists"`
	Undetermined    int    `json:"undetermined"`
	// Blocked says why Nova could not be asked (no admin role, a cell
	// down): every candidate is then undetermined.
	Blocked completeness.Gaps `json:"blocked,omitempty"`
	// Incomplete are the audit's partial reads (server list, projects).
	Incomplete completeness.Gaps `json:"incomplete,omitempty"`
}

// ProofMethod is the one way a plan proves an instance gone.
const ProofMethod = "GET /servers/{uuid} at compute API 2.69 answered 404 to a token with the admin role, while the service list (2.69) showed every cell up, before and after"

// cleanupCandidate is whether a step needs Nova's word on its instance.
func cleanupCandidate(o Orphan) bool {
	return (o.Kind == OrphanGone || o.Kind == OrphanUndetermined) && IsUUID(o.ID) && IsUUID(o.InstanceID)
}

// PlanCleanup asks Nova, by UUID, about the instance of every orphan
// candidate of an audit, then plans: the service behind --cleanup-plan.
// limit bounds the GETs in flight.
func PlanCleanup(ctx context.Context, sess *cloud.Session, a Audited, limit int) (CleanupPlan, error) {
	c, err := sess.Compute()
	if err != nil {
		return CleanupPlan{}, err
	}
	_, admin, err := sess.TokenProject()
	if err != nil {
		return CleanupPlan{}, err
	}
	if limit < 1 {
		limit = DefaultConcurrency
	}
	proof := compute.ProveGone(ctx, c, CleanupCandidates(a.Result), admin, limit)
	if err := ctx.Err(); err != nil {
		return CleanupPlan{}, err
	}
	return NewCleanupPlan(a, proof, time.Now()), nil
}

// CleanupCandidates are the instance UUIDs to ask Nova about.
func CleanupCandidates(r Result) []string {
	seen := map[string]bool{}
	var out []string
	for _, o := range r.Orphans {
		if cleanupCandidate(o) && !seen[o.InstanceID] {
			seen[o.InstanceID] = true
			out = append(out, o.InstanceID)
		}
	}
	sort.Strings(out)
	return out
}

// NewCleanupPlan decides each orphan's step from Nova's answers. Only a
// secret whose instance Nova proved gone gets a delete command, and only
// when every value in it was checked (a UUID, the key manager's own
// endpoint), never a name or a server-supplied URL.
func NewCleanupPlan(a Audited, proof compute.GoneProof, now time.Time) CleanupPlan {
	p := CleanupPlan{Schema: CleanupSchema, Cloud: a.Cloud, Generated: now.UTC(), SecretsURL: a.SecretsURL, NotAuditable: a.Result.NotAuditable, Steps: []CleanupStep{},
		Proof: CleanupProof{Method: ProofMethod, ComputeEndpoint: proof.Endpoint, Blocked: proof.Blocked, Incomplete: a.Result.Incomplete}}
	if p.NotAuditable == nil {
		p.NotAuditable = map[string]string{}
	}
	cloudArg := ""
	if a.Cloud != "" {
		cloudArg = " --os-cloud " + quote.Shell(a.Cloud)
	}
	for _, or := range a.Result.Orphans {
		st := CleanupStep{SecretID: or.ID, InstanceID: or.InstanceID, ProjectID: or.ProjectID, CreatorID: or.CreatorID, Age: or.AgeStr, Kind: or.Kind, Action: CleanupKeep, Reason: or.Reason}
		switch {
		case or.Kind == OrphanLive:
			st.comment = fmt.Sprintf("not deleted, its server exists: %s (%s)", or.ID, or.Reason)
		case or.Kind == OrphanDuplicate:
			st.comment = fmt.Sprintf("duplicate, not deleted: %s (instance %s) — check the domain's <encryption secret> first", or.ID, or.InstanceID)
		case !cleanupCandidate(or):
			continue // never a step for anything but Nova's own form
		}
		if or.Kind == OrphanLive || or.Kind == OrphanDuplicate {
			p.Steps = append(p.Steps, st)
			continue
		}
		p.Proof.Asked++
		ex, asked := proof.Servers[or.InstanceID]
		if !asked {
			ex = nova.ExistenceProof{State: nova.ServerUndetermined, Reason: "Nova was not asked"}
		}
		st.Existence, st.Reason = ex.State, ex.Reason
		switch {
		case ex.State == nova.ServerExists:
			p.Proof.Exists++
			st.Kind = OrphanLive
			st.comment = fmt.Sprintf("not deleted, its server exists: %s (instance %s, project %s, status %s)", or.ID, or.InstanceID, ex.ProjectID, ex.Status)
		case ex.State != nova.ServerGone:
			p.Proof.Undetermined++
			st.Kind = OrphanUndetermined
			st.comment = fmt.Sprintf("undetermined, not deleted: %s (instance %s): %s", or.ID, or.InstanceID, ex.Reason)
		case len(or.Consumers) > 0:
			p.Proof.Gone++
			st.Kind = OrphanGone
			// Never forced: a consumer says someone relies on it.
			st.comment = fmt.Sprintf("protected, not deleted: %s (instance %s gone, %s old) has consumer(s) %s; remove the consumer first if you are sure, then delete it", or.ID, or.InstanceID, or.AgeStr, consumerList(or.Consumers))
		default:
			p.Proof.Gone++
			st.Kind = OrphanGone
			st.comment = fmt.Sprintf("instance %s gone (Nova: 404); created by %s, %s old", or.InstanceID, or.CreatorID, or.AgeStr)
			st.SecretRef = a.SecretsURL + or.ID
			if quote.HasControl(a.Cloud) || quote.HasControl(or.ProjectID) {
				st.comment += "\n" + "not written: the cloud name or project ID has control characters; delete " + or.ID + " by hand"
				break
			}
			st.Action = CleanupDelete
			st.Command = fmt.Sprintf("openstack%s --os-project-id %s secret delete %s", cloudArg, quote.Shell(or.ProjectID), quote.Shell(st.SecretRef))
		}
		p.Steps = append(p.Steps, st)
	}
	return p
}

// Deletes counts the delete commands.
func (p *CleanupPlan) Deletes() int {
	n := 0
	for _, s := range p.Steps {
		if s.Command != "" {
			n++
		}
	}
	return n
}

// Script writes the plan as a reviewable shell script: comments carry
// no line break a name could use to start a command.
func (p *CleanupPlan) Script(w io.Writer) error {
	var b strings.Builder
	b.WriteString("#!/bin/sh\nset -eu\n")
	line := func(s string) { b.WriteString(quote.ShellComment(s) + "\n") }
	line(fmt.Sprintf("vtpmctl secrets audit --cleanup-plan, %s. Review before running.", p.Generated.UTC().Format(time.RFC3339)))
	b.WriteString("# Each vTPM secret of a deleted instance; created by, and age, in the comment.\n")
	line("An instance is gone only when Nova says so: " + p.Proof.Method + ".")
	if p.Proof.ComputeEndpoint != "" {
		line("Nova asked: " + p.Proof.ComputeEndpoint + " (a key manager shared by several regions also holds secrets of the others' instances: run the plan per region).")
	}
	line(fmt.Sprintf("Of %d candidate secret(s), Nova proved the instance gone for %d; for %d it exists; %d are undetermined.", p.Proof.Asked, p.Proof.Gone, p.Proof.Exists, p.Proof.Undetermined))
	for _, g := range p.Proof.Blocked {
		line("NOT PROVEN: " + g.String())
	}
	for _, g := range p.Proof.Incomplete {
		line("partial read: " + g.String())
	}
	var na []string
	for pr, why := range p.NotAuditable {
		na = append(na, pr+": "+why)
	}
	sort.Strings(na)
	if len(na) > 0 {
		line(fmt.Sprintf("WARNING: %d project(s) could not be audited; their orphans are not in this plan:", len(na)))
		for _, l := range na {
			line("  " + l)
		}
	}
	for _, s := range p.Steps {
		for _, c := range strings.Split(s.comment, "\n") {
			line(c)
		}
		if s.Command != "" {
			b.WriteString(s.Command + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Table implements output.Tabular: one row per step.
func (p *CleanupPlan) Table() output.Table {
	t := output.Table{Key: "steps", Columns: []string{"Secret", "Instance", "Project", "Kind", "Action", "Command"}}
	for _, s := range p.Steps {
		t.Rows = append(t.Rows, output.Record{{Name: "Secret", Value: s.SecretID}, {Name: "Instance", Value: s.InstanceID}, {Name: "Project", Value: s.ProjectID},
			{Name: "Kind", Value: string(s.Kind)}, {Name: "Action", Value: s.Action}, {Name: "Command", Value: s.Command}})
	}
	return t
}
