package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/quote"
)

var changeColumns = []string{"object", "key", "old", "new", "action"}

// changesDocument is the changes document of the write commands: the
// changes, and the keys Nova ignores that stand for vTPM keys.
func changesDocument(recs, misses []output.Record) output.List {
	if misses == nil {
		misses = []output.Record{}
	}
	return output.List{Schema: nova.ChangesSchema, Key: "changes", Columns: changeColumns, Rows: recs,
		Extra: []output.Field{{Name: "near_misses", Value: misses}}}
}

// nearMissWords names a key's place on each kind of object.
var nearMissWords = map[nova.KeyKind]string{nova.ImageKeys: "property", nova.FlavorKeys: "extra spec"}

// printChanges prints every key of every object (unchanged ones too, so a
// rerun visibly changes nothing), notes and failures on stderr, and
// decides the exit: 1 when any object failed to write.
func printChanges(streams *IOStreams, g *globalOptions, plans []nova.ObjectPlan, dryRun bool) error {
	var recs, misses []output.Record
	failed, writes := 0, 0
	for _, p := range plans {
		for _, n := range p.Notes {
			say(streams.Err, "vtpmctl: %s: %s", p.Name, n)
		}
		// a key Nova ignores the write leaves (or puts) on the object
		for _, m := range p.NearMisses {
			warn(streams, "%s: %s", p.Name, nearMissLine(nearMissWords[m.Kind]+" ", m, nova.Decision{}))
			misses = append(misses, output.Record{{Name: "object", Value: p.Name}, {Name: "key", Value: m.Key}, {Name: "kind", Value: string(m.Kind)},
				{Name: "did_you_mean", Value: m.Want}, {Name: "reason", Value: string(m.Reason)}})
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
	if err := output.Write(streams.Out, g.Output, changesDocument(recs, misses)); err != nil {
		// stopped by a signal: the line says which objects were changed
		return withWritesMade(err, func() string { return changesMade(plans, dryRun) })
	}
	for _, p := range plans {
		var pw *nova.PartialWriteError
		switch {
		case errors.As(p.Err, &pw):
			say(streams.Err, "vtpmctl: %s: partly changed: %s written, %s not: %s", p.Name,
				strings.Join(pw.Written, ", "), strings.Join(pw.NotWritten, ", "), pw.Err)
		case p.Err != nil:
			say(streams.Err, "vtpmctl: %s: not changed: %s", p.Name, p.Err)
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
	say(streams.Err, "vtpmctl: warning: "+format, args...)
}

// say prints one line of notes or warnings. The format is ours; a string
// argument is a name (of a cloud object, from a file) or a sentence
// holding one, and one with a newline would forge a line of vtpmctl's
// ("x\nvtpmctl: all checks passed"): it is shown Go-quoted, escapes
// visible. An error argument is shown as the error line is (one line, no
// credential).
func say(w io.Writer, format string, args ...any) {
	shown := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case string:
			shown[i] = shownName(v)
		case error:
			shown[i] = errorLine(v.Error())
		default:
			shown[i] = a
		}
	}
	fmt.Fprintf(w, format+"\n", shown...)
}

// shownName is s, or s Go-quoted when it holds a control character (a
// line break, an escape, a bidi control): one line, and visibly not ours.
func shownName(s string) string {
	if quote.HasControl(s) {
		return strconv.Quote(s)
	}
	return s
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

func verb(set bool) string {
	if set {
		return "set"
	}
	return "unset"
}

// changesMade words, for an interruption's line, which objects the
// plans' writes changed before the run stopped ("" for a dry run or no
// write): written whole, partly (which keys), and not confirmed.
func changesMade(plans []nova.ObjectPlan, dryRun bool) string {
	if dryRun {
		return ""
	}
	var done, rest []string
	var partly []string
	for _, p := range plans {
		if len(nova.Writes(p.Changes)) == 0 {
			continue
		}
		var pw *nova.PartialWriteError
		switch {
		case p.Err == nil:
			done = append(done, p.Name)
		case errors.As(p.Err, &pw):
			partly = append(partly, fmt.Sprintf("%s (%s written, %s not)", shownName(p.Name), strings.Join(pw.Written, ", "), strings.Join(pw.NotWritten, ", ")))
			rest = append(rest, p.Name)
		default:
			rest = append(rest, p.Name)
		}
	}
	s := madeList("object(s) changed", done, rest, "not confirmed")
	if len(partly) > 0 {
		s += "; partly changed: " + named(partly)
	}
	return s
}
