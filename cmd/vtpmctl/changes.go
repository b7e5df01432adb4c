package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/nova"
)

var changeColumns = []string{"object", "key", "old", "new", "action"}

// printChanges prints every key of every object (unchanged ones too, so a
// rerun visibly changes nothing), notes and failures on stderr, and
// decides the exit: 1 when any object failed to write.
func printChanges(streams *IOStreams, g *globalOptions, plans []nova.ObjectPlan, dryRun bool) error {
	var recs []output.Record
	failed, writes := 0, 0
	for _, p := range plans {
		for _, n := range p.Notes {
			fmt.Fprintf(streams.Err, "vtpmctl: %s: %s\n", p.Name, n)
		}
		// a write that failed midway left these keys changed
		written := nova.WrittenKeys(p.Err)
		for _, c := range p.Changes {
			action := string(c.Action)
			if c.Action != nova.Unchanged {
				writes++
				if p.Err != nil && !written[c.Key] {
					action = "failed"
				} else if dryRun {
					action = "would be " + action
				}
			}
			recs = append(recs, output.Record{{Name: "object", Value: c.Object}, {Name: "key", Value: c.Key},
				{Name: "old", Value: c.Old}, {Name: "new", Value: c.New}, {Name: "action", Value: action}})
		}
		if p.Err != nil {
			failed++
		}
	}
	if err := output.Write(streams.Out, g.Output, output.List{Columns: changeColumns, Rows: recs}); err != nil {
		return err
	}
	for _, p := range plans {
		var pw *nova.PartialWriteError
		switch {
		case errors.As(p.Err, &pw):
			fmt.Fprintf(streams.Err, "vtpmctl: %s: partly changed: %s written, %s not: %s\n", p.Name,
				strings.Join(pw.Written, ", "), strings.Join(pw.NotWritten, ", "), oneLine(pw.Err.Error()))
		case p.Err != nil:
			fmt.Fprintf(streams.Err, "vtpmctl: %s: not changed: %s\n", p.Name, oneLine(p.Err.Error()))
		}
	}
	if dryRun {
		fmt.Fprintf(streams.Err, "vtpmctl: dry run: %d change(s) on %d object(s) planned, nothing written\n", writes, len(plans))
	}
	if failed > 0 {
		return &reportedError{code: exitFailed, msg: fmt.Sprintf("%d of %d object(s) could not be changed", failed, len(plans))}
	}
	return nil
}

func warn(streams *IOStreams, format string, args ...any) {
	fmt.Fprintf(streams.Err, "vtpmctl: warning: "+format+"\n", args...)
}

// maxWarnings keeps a conflict report readable on a big cloud; the count
// of the rest is still given.
const maxWarnings = 10

func warnAll(streams *IOStreams, ws []string) {
	for i, w := range ws {
		if i == maxWarnings {
			warn(streams, "… and %d more such pairs", len(ws)-maxWarnings)
			return
		}
		warn(streams, "%s", w)
	}
}
