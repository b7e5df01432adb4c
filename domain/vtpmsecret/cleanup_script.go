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

// Table implements output.Tabular: one row per step.
func (p *CleanupPlan) Table() output.Table {
	t := output.Table{Key: "steps", Columns: []string{"Secret", "Instance", "Project", "Kind", "Action", "Command"}}
	for _, s := range p.Steps {
		t.Rows = append(t.Rows, output.Record{{Name: "Secret", Value: s.SecretID}, {Name: "Instance", Value: s.InstanceID}, {Name: "Project", Value: s.ProjectID},
			{Name: "Kind", Value: string(s.Kind)}, {Name: "Action", Value: s.Action}, {Name: "Command", Value: s.Command}})
	}
	return t
}
