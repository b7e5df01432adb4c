package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/output"
)

// changesResult is what the write commands print: the changes document.
func changesResult(*cli.Command) any { return changesDocument(nil, nil) }

// summaryOr is an audit's result, or with --summary its summary view.
func summaryOr(whole, summary any) func(*cli.Command) any {
	return func(cmd *cli.Command) any {
		if cmd.Bool("summary") {
			return summary
		}
		return whole
	}
}

// hostsAuditResult: --drain HOST prints that host's guests.
func hostsAuditResult(cmd *cli.Command) any {
	switch {
	case cmd.IsSet("drain"):
		return &fleet.DrainResult{}
	case cmd.Bool("summary"):
		return fleet.Result{}.SummaryView()
	}
	return &fleet.Result{}
}

// secretsAuditResult: --cleanup-plan prints a script, or with -f the
// plan.
func secretsAuditResult(cmd *cli.Command) any {
	switch {
	case cmd.Bool("cleanup-plan") && !cmd.IsSet("format"):
		return nil // the script, which -c does not narrow
	case cmd.Bool("cleanup-plan"):
		return &vtpmsecret.CleanupPlan{}
	case cmd.Bool("summary"):
		return vtpmsecret.Result{}.SummaryView()
	}
	return &vtpmsecret.Result{}
}

// resultKey is where withResult keeps a command's result prototype
// (Metadata).
const resultKey = "vtpmctl.result"

// withResult declares, where cmd is built, what it prints, as an empty result of the type it
// passes output.Write (proto is given the parsed command: --summary,
// --drain or --cleanup-plan print another type; nil: -c is not checked).
// Its columns are what -c may name, checked for the command actually
// invoked before any work (guardFormats, checkColumns): a mistyped
// `secrets audit --all-projects -c stauts` is one usage line, not the
// whole audit and then the line.
func withResult(cmd *cli.Command, proto func(cmd *cli.Command) any) *cli.Command {
	if cmd.Metadata == nil {
		cmd.Metadata = map[string]any{}
	}
	cmd.Metadata[resultKey] = proto
	return cmd
}

// prints is withResult's proto for a command that prints one type.
func prints(v any) func(*cli.Command) any { return func(*cli.Command) any { return v } }

// commandResult is cmd's prototype for this run; false when it declared
// none.
func commandResult(cmd *cli.Command) (any, bool) {
	proto, ok := cmd.Metadata[resultKey].(func(*cli.Command) any)
	if !ok {
		return nil, false
	}
	return proto(cmd), true
}

// columnFlags are the flags whose values name the result's columns: each
// is checked against the command's columns as -c is. A flag that sorts or
// adds by column (--sort-column) is added here, and needs nothing else.
var columnFlags = []string{"column", "sort-column"}

// checkColumns refuses a column flag's value that names no column of what
// cmd prints in format f: one usage line naming the flag, the value and
// the closest column. A command with no declared result, or a format
// whose names come from the rows (output.Columns), is not checked here;
// output.Write still refuses an unknown name.
func checkColumns(cmd *cli.Command, path string, f output.Format) error {
	var given [][2]string // flag, value
	for _, name := range columnFlags {
		switch v := cmd.Value(name).(type) {
		case []string:
			for _, s := range v {
				given = append(given, [2]string{name, s})
			}
		case string:
			if v != "" {
				given = append(given, [2]string{name, v})
			}
		}
	}
	if len(given) == 0 {
		return nil
	}
	proto, ok := commandResult(cmd)
	if !ok {
		return nil
	}
	return checkColumnValues(proto, path, f, given)
}

// checkColumnValues checks each given flag's value against the columns of
// proto (what the command prints) in format f.
func checkColumnValues(proto any, path string, f output.Format, given [][2]string) error {
	if proto == nil {
		return nil
	}
	names, ok := output.Columns(proto, f)
	if !ok {
		return nil
	}
	for _, g := range given {
		if !slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, g[1]) }) {
			return unknownColumn(columnFlag(g[0]), g[1], path, f, names)
		}
	}
	return nil
}

// unknownColumn is the usage line for a column flag's value that names no
// column: the closest column, or the list.
func unknownColumn(flag, value, path string, f output.Format, names []string) error {
	has := path + " has no such column"
	if f == output.FormatJSON || f == output.FormatYAML {
		has = fmt.Sprintf("%s -f %s has no such field", path, f) // -c narrows the document's objects to their keys
	}
	lower := make([]string, len(names))
	for i, n := range names {
		lower[i] = strings.ToLower(n)
	}
	if s := suggest(strings.ToLower(value), lower); s != "" {
		return usagef("%s %q: %s (did you mean %q?)", flag, value, has, names[slices.Index(lower, s)])
	}
	return usagef("%s %q: %s (choose from %s)", flag, value, has, strings.Join(names, ", "))
}

// columnFlagSpelling is how a column flag is typed in a message.
var columnFlagSpelling = map[string]string{"column": "-c"}

func columnFlag(name string) string {
	if s, ok := columnFlagSpelling[name]; ok {
		return s
	}
	return dashed(name)
}
