package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/internal/editdist"
)

// Mistyped commands and flags: one usage line, exit 2, with "did you
// mean" when one name is close. urfave/cli's own Suggest always names the
// nearest candidate however far ("frobnicate" became a suggestion), and
// prints it as a paragraph before the help; these are its hooks
// (CommandNotFound, OnUsageError, the groups' Action) filled in our words.

// unknownCommand is the usage error for a word that names no subcommand
// of cmd.
func unknownCommand(cmd *cli.Command, name string) error {
	where := ""
	if cmd.Root() != cmd {
		where = " for " + cmd.FullName()
	}
	if s := suggest(name, commandNames(cmd)); s != "" {
		return usagef("unknown command %q%s (did you mean %q?)", name, where, s)
	}
	return usagef("unknown command %q%s; see %s --help", name, where, cmd.FullName())
}

// notFoundKey marks, in the root's Metadata, that commandNotFound spoke.
const notFoundKey = "vtpmctl.command-not-found"

// commandNotFound is `vtpmctl help chek`'s line: urfave/cli returns no
// error there, so it is written here, as exitCode would, and Main ends
// with exit 2 (notFound).
func commandNotFound(ctx context.Context, cmd *cli.Command, name string) {
	fmt.Fprintln(cmd.Root().ErrWriter, "vtpmctl: "+errorLine(unknownCommand(cmd, name).Error()))
	root := cmd.Root()
	if root.Metadata == nil {
		root.Metadata = map[string]any{}
	}
	root.Metadata[notFoundKey] = true
}

// notFound says whether commandNotFound spoke during root's run.
func notFound(root *cli.Command) bool { return root.Metadata[notFoundKey] == true }

// commandNames are the names a user may type below cmd.
func commandNames(cmd *cli.Command) []string {
	var out []string
	for _, c := range cmd.VisibleCommands() {
		out = append(out, c.Names()...)
	}
	return out
}

const (
	notDefined = "flag provided but not defined: -"
	needsValue = "flag needs an argument: "
)

// onUsageError words urfave/cli's flag errors once, without the command
// name it would put in front of exitCode's "vtpmctl: ": an unknown flag
// with the closest one, a flag without its value, a bad value.
func onUsageError(ctx context.Context, cmd *cli.Command, err error, isSub bool) error {
	msg := err.Error()
	for_ := ""
	if cmd.Root() != cmd {
		for_ = " for " + cmd.FullName()
	}
	see := fmt.Sprintf(" (see %s --help)", cmd.FullName())
	switch {
	case strings.HasPrefix(msg, notDefined):
		name := strings.TrimPrefix(msg, notDefined)
		if s := suggest(name, flagsOf(cmd)); s != "" {
			see = fmt.Sprintf(" (did you mean %s?)", dashed(s))
		}
		msg = "unknown flag " + dashed(name) + for_
	case strings.HasPrefix(msg, needsValue):
		msg = "flag " + dashed(strings.TrimLeft(strings.TrimPrefix(msg, needsValue), "-")) + for_ + " needs a value"
	default:
		msg = strings.Replace(msg, "for flag -", "for --", 1) // the flag package's spelling is not ours
		if strings.Contains(msg, "(did you mean ") {
			see = "" // the value's own hint (releaseValue) is the line's end
		}
	}
	return &usageError{msg: msg + see, err: err}
}

// flagsOf are the flags cmd takes (its own and its ancestors'
// persistent ones), without the hidden ones: an old spelling kept for
// scripts is not what to suggest.
func flagsOf(cmd *cli.Command) []string {
	var out []string
	for _, f := range append(cmd.VisibleFlags(), cmd.VisiblePersistentFlags()...) {
		out = append(out, f.Names()...)
	}
	return out
}

// dashed is a flag name as typed: -f, --format.
func dashed(name string) string {
	if len([]rune(name)) == 1 {
		return "-" + name
	}
	return "--" + name
}

// choiceHint is what a usage line adds for a value that is none of
// choices: the one close to it (did you mean "json"?), else the list
// (choose from table, json, yaml).
func choiceHint(typed string, choices []string) string {
	if s := suggest(typed, choices); s != "" {
		return fmt.Sprintf("did you mean %q?", s)
	}
	return "choose from " + strings.Join(choices, ", ")
}

// suggest is the one candidate close to typed, or "": within len/3
// edits (a transposition is one; at least one from 3 characters, none
// below: "-x" is no typo of "-f"), else the only candidate typed begins
// (at least 3 characters). Two at the same distance: the first, in the
// order help lists them.
func suggest(typed string, candidates []string) string {
	limit := len([]rune(typed)) / 3
	if limit == 0 && len([]rune(typed)) >= 3 {
		limit = 1
	}
	best, bestD := "", limit+1
	for _, c := range candidates {
		if d := editdist.Distance(typed, c); d < bestD {
			best, bestD = c, d
		}
	}
	if best != "" {
		return best
	}
	prefixed := ""
	for _, c := range candidates {
		if len(typed) >= 3 && strings.HasPrefix(c, typed) && c != prefixed {
			if prefixed != "" {
				return ""
			}
			prefixed = c
		}
	}
	return prefixed
}
