package vtpmsecret

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/quote"
)

// Script writes the plan as a reviewable shell script: comments carry
// no line break a name could use to start a command. command is the
// caller's command line that made the plan, said in the header (the
// plan knows no flag).
func (p *CleanupPlan) Script(w io.Writer, command string) error {
	var b strings.Builder
	b.WriteString("#!/bin/sh\nset -eu\n")
	line := func(s string) { b.WriteString(quote.ShellComment(s) + "\n") }
	line(fmt.Sprintf("%s, %s. Review before running.", command, p.Generated.UTC().Format(time.RFC3339)))
	b.WriteString("# Each vTPM secret of a deleted instance; created by, and age, in the comment.\n")
	line("An instance is gone only when Nova says so: " + p.Proof.Method + ".")
	switch {
	case len(p.Proof.Regions) > 0:
		line(fmt.Sprintf("The catalog lists this key manager under %d regions (%s): it holds the secrets of every one's guests, so an instance is gone only when each region's Nova answered 404 for it, every cell up in each (a region that reaches it at another URL is not seen).",
			len(p.Proof.Regions), strings.Join(regionNames(p.Proof.Regions), ", ")))
		for _, r := range p.Proof.Regions {
			switch {
			case r.Unreachable != "":
				line(fmt.Sprintf("  region %s: its Nova could not be asked: %s", r.Region, r.Unreachable))
			case r.ComputeEndpoint == "":
				line(fmt.Sprintf("  region %s: not asked (no instance was left to ask about)", r.Region))
			default:
				line(fmt.Sprintf("  region %s: Nova %s asked about %d instance(s), %d gone", r.Region, r.ComputeEndpoint, r.Asked, r.Gone))
			}
		}
	case p.Proof.ComputeEndpoint != "":
		line("Nova asked: " + p.Proof.ComputeEndpoint + ", of the one region whose catalog lists this key manager's endpoint. A region that reaches the same key manager at another URL is not seen: its guests' secrets would look orphaned here, so do not run this plan if one does.")
	}
	line(fmt.Sprintf("Of %d candidate secret(s), Nova proved the instance gone for %d; for %d it exists; %d are undetermined.", p.Proof.Asked, p.Proof.Gone, p.Proof.Exists, p.Proof.Undetermined))
	for _, g := range p.Proof.Blocked {
		line("NOT PROVEN: " + g.String())
	}
	for _, g := range p.Proof.Incomplete {
		line("partial read: " + g.String())
	}
	if na := NotAuditableLines(p.NotAuditable); len(na) > 0 {
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

// Table implements output.Tabular: one row per step, its columns the
// steps' JSON keys (--long: who created the secret, its age, Nova's
// answer and the reason too). A command is never wrapped: it is copied.
func (p *CleanupPlan) Table() output.Table {
	t := output.Table{Key: "steps", Wrap: []string{"reason"},
		Columns: []string{"secret_id", "instance_id", "project_id", "creator_id", "age", "kind", "existence", "action", "reason", "command"},
		Default: []string{"secret_id", "instance_id", "project_id", "kind", "action", "command"}}
	for _, s := range p.Steps {
		t.Rows = append(t.Rows, output.Record{{Name: "secret_id", Value: s.SecretID}, {Name: "instance_id", Value: s.InstanceID}, {Name: "project_id", Value: s.ProjectID},
			{Name: "creator_id", Value: s.CreatorID}, {Name: "age", Value: humanAge(time.Duration(s.AgeSeconds) * time.Second)}, {Name: "kind", Value: string(s.Kind)}, {Name: "existence", Value: s.Existence},
			{Name: "action", Value: s.Action}, {Name: "reason", Value: s.Reason}, {Name: "command", Value: s.Command}})
	}
	return t
}
