package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// writeGate is the one way a command asks before a bulk write (several
// objects, a selection, every project): --yes writes, --dry-run writes
// nothing, and otherwise a terminal is shown the plan and asked, while a
// script (no terminal) is refused before any cloud is contacted, so an
// unattended run never writes more than it named. A single named object
// is no bulk write and passes.
type writeGate struct {
	streams *IOStreams
	command string // "image set"
	// what would be written, in words, for the refusal's one line
	what   string
	bulk   bool
	yes    bool
	dryRun bool
}

// canAsk says whether the user can be asked: stdin and stderr are a
// terminal. stderr is asked as it was handed to vtpmctl, under the
// writers that escape and quieten it (a wrapped writer is no terminal:
// the question was never asked, so --yes, which skips the list of what
// will change, was the only way forward).
func canAsk(s *IOStreams) bool {
	f, ok := s.In.(io.Writer) // *os.File is both; isTerminal takes a Writer
	return ok && isTerminal(f) && isTerminal(rawWriter(s.Err))
}

// check refuses, before any cloud is contacted, a bulk write nobody can
// confirm: exit 2, one line.
func (g writeGate) check() error {
	if !g.bulk || g.yes || g.dryRun || canAsk(g.streams) {
		return nil
	}
	return usagef("%s: would %s; pass --yes to write, or --dry-run to see the changes", g.command, g.what)
}

// needed says whether the plan must be confirmed on the terminal.
func (g writeGate) needed() bool { return g.bulk && !g.yes && !g.dryRun }

// ask shows the lines on the terminal and asks; anything but y or yes
// is a no, which ends the command (exit 1) with nothing written. A
// signal while it waits ends the wait at once (ctx's error: the run's
// interruption line says nothing was written), not at the next line
// typed.
func (g writeGate) ask(ctx context.Context, lines []string, question string) error {
	for _, l := range lines {
		say(g.streams.Err, "  %s", l)
	}
	fmt.Fprintf(g.streams.Err, "vtpmctl: %s? [y/N] ", question)
	got := make(chan string, 1)
	go func() { // left blocked on the terminal if ctx ends first: the process is ending
		answer, _ := bufio.NewReader(g.streams.In).ReadString('\n')
		got <- answer
	}()
	var answer string
	select {
	case answer = <-got:
	case <-ctx.Done():
		return ctx.Err()
	}
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return nil
	}
	return &reportedError{code: exitFailed, msg: g.command + ": not confirmed; nothing was written"}
}

// confirmPlans is the tagging services' Confirm for this gate: the
// changes each object would get, then the question.
func (g writeGate) confirmPlans(noun string) func(context.Context, []nova.ObjectPlan) error {
	if !g.needed() {
		return nil
	}
	return func(ctx context.Context, plans []nova.ObjectPlan) error {
		var lines []string
		objects := 0
		for _, p := range plans {
			ws := nova.Writes(p.Changes)
			if len(ws) > 0 {
				objects++
			}
			for _, c := range ws {
				lines = append(lines, fmt.Sprintf("%s: %s: %s %q → %q", p.Name, c.Key, c.Action, c.Old, c.New))
			}
		}
		return g.ask(ctx, lines, fmt.Sprintf("write these %d change(s) to %d %s(s)", len(lines), objects, noun))
	}
}
