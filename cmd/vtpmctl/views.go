package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// viewOptions are the audits' --summary and --status: what of a result
// is shown. A view never changes the exit status, the JUnit file or the
// metrics (-f prometheus): those are the whole run's.
type viewOptions struct {
	Summary bool
	Status  []string
	filter  result.Filter
}

// viewHelp is the audits' help paragraph on the views; row names what a
// row is in that command.
func viewHelp(row string) string {
	return `
--summary prints the summary alone: in a table its counts, one a line; with
-f json or yaml the same document (same schema) with its lists of rows empty.
--status fail,warn keeps only the ` + row + ` of those statuses (pass, warn,
fail, skip; a comma list or repeated), with the summary of the whole run.
Neither changes the exit status, --junit or -f prometheus.`
}

func viewFlags(v *viewOptions) []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "summary", Usage: "print the summary alone (json/yaml: the document with its lists of rows empty)", Destination: &v.Summary},
		&cli.StringSliceFlag{Name: "status", Usage: "show only rows of `STATUS` (fail, warn, skip, pass; comma list or repeatable); the summary stays the whole run's", Destination: &v.Status},
	}
}

// parse checks the flags before any work: an unknown status is a usage
// error naming the valid ones.
func (v *viewOptions) parse() error {
	f, err := result.ParseFilter(v.Status)
	var unknown *result.UnknownStatusError
	if errors.As(err, &unknown) {
		names := make([]string, len(result.Statuses))
		for i, s := range result.Statuses {
			names[i] = string(s)
		}
		return &usageError{msg: fmt.Sprintf("--status %q: not a status (%s)", unknown.Word, choiceHint(strings.ToLower(strings.TrimSpace(unknown.Word)), names)), err: err}
	}
	if err != nil {
		return err
	}
	if v.Summary && len(f) > 0 {
		return usagef("--summary and --status exclude each other: the summary counts every row")
	}
	v.filter = f
	return nil
}

// pick is what output.Write is given: the whole result for
// -f prometheus (metrics are of the whole run) or without a view, else
// the summary view or the filtered result.
func (v *viewOptions) pick(o output.Options, whole any, summary func() any, only func(result.Filter) any) any {
	switch {
	case output.Format(o.Format) == output.FormatPrometheus:
		return whole
	case v.Summary:
		return summary()
	case len(v.filter) > 0:
		return only(v.filter)
	}
	return whole
}

// set says whether a view was asked for.
func (v *viewOptions) set() bool { return v.Summary || len(v.Status) > 0 }
