package main

import (
	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/internal/output"
)

// The fleet-scale defaults: a table for people groups identical answers
// (upgrade check, hosts audit --drain) and leads with the verdict; --long
// lists every row, as value, csv, -c and json always do.

// longHint is where a brief table points for every row.
const longHint = "--long, or -f json"

func longFlag(dst *bool, what string) cli.Flag {
	return &cli.BoolFlag{Name: "long", Usage: what + " (the default table groups identical answers, a count and some names each, verdict first); json and yaml always hold every one", Destination: dst}
}

// brief says whether the output is a table for people, which the
// fleet-scale views group: not -c, value, csv or a document, and not
// --long, the command's or the global one (vtpmctl --long upgrade
// check: the global flag, before the command, sets only o.Long).
func brief(o output.Options, long bool) bool {
	f := output.Format(o.Format)
	return !long && !o.Long && (f == "" || f == output.FormatTable) && len(o.Columns) == 0
}
