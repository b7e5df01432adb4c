package barbican

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/quote"
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
	Action     string     `json:"action"`
	Reason     string     `json:"reason"`
	Command    string     `json:"command,omitempty"`
	// comment is the script's line(s) for this step, in Nova's words.
	comment string
}

// CleanupPlan is what --cleanup-plan prints: the orphans and the delete
// commands for those whose instance is gone. Nothing is deleted.
type CleanupPlan struct {
	Schema     string    `json:"schema"`
	Cloud      string    `json:"cloud,omitempty"`
	Generated  time.Time `json:"generated"`
	SecretsURL string    `json:"secrets_url"`
	// NotAuditable projects: their orphans are not in the plan.
	NotAuditable map[string]string `json:"not_auditable"`
	Steps        []CleanupStep     `json:"steps"`
}

// NewCleanupPlan decides each orphan's step. Only a secret whose
// instance is gone gets a delete command, and only when every value in
// it was checked (a UUID, the key manager's own endpoint), never a name
// or a server-supplied URL.
func NewCleanupPlan(a Audited, now time.Time) CleanupPlan {
	p := CleanupPlan{Schema: CleanupSchema, Cloud: a.Cloud, Generated: now.UTC(), SecretsURL: a.SecretsURL, NotAuditable: a.Result.NotAuditable, Steps: []CleanupStep{}}
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
		case or.Kind != OrphanGone || !IsUUID(or.ID) || !IsUUID(or.InstanceID):
			continue // never a step for anything but Nova's own form
		case len(or.Consumers) > 0:
			// Never forced: a consumer says someone relies on it.
			st.comment = fmt.Sprintf("protected, not deleted: %s (instance %s gone, %s old) has consumer(s) %s; remove the consumer first if you are sure, then delete it", or.ID, or.InstanceID, or.AgeStr, consumerList(or.Consumers))
		default:
			st.comment = fmt.Sprintf("instance %s gone; created by %s, %s old", or.InstanceID, or.CreatorID, or.AgeStr)
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
	t := output.Table{Columns: []string{"Secret", "Instance", "Project", "Kind", "Action", "Command"}}
	for _, s := range p.Steps {
		t.Rows = append(t.Rows, output.Record{{Name: "Secret", Value: s.SecretID}, {Name: "Instance", Value: s.InstanceID}, {Name: "Project", Value: s.ProjectID},
			{Name: "Kind", Value: string(s.Kind)}, {Name: "Action", Value: s.Action}, {Name: "Command", Value: s.Command}})
	}
	return t
}
