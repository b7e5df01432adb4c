package main

import (
	"context"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"
)

// The one file output flag takes --output and -o, and an old spelling
// kept with hiddenAlias still sets it, unlisted in help and never
// suggested.
func TestOutputFlagAndHiddenAlias(t *testing.T) {
	for _, args := range [][]string{{"--output", "f.html"}, {"-o", "f.html"}, {"--out", "f.html"}, {"--out=f.html"}} {
		var out string
		var help strings.Builder
		cmd := &cli.Command{Name: "report", Writer: &help, Flags: []cli.Flag{outputFlag(&out, "write to `FILE`"), hiddenAlias("out", &out)}, Action: func(context.Context, *cli.Command) error { return nil }}
		if err := cmd.Run(context.Background(), append([]string{"report"}, args...)); err != nil || out != "f.html" {
			t.Errorf("%v: %q %v", args, out, err)
		}
		if err := cmd.Run(context.Background(), []string{"report", "--help"}); err != nil || strings.Contains(help.String(), "--out ") || !strings.Contains(help.String(), "--output FILE, -o FILE") {
			t.Errorf("help:\n%s", help.String())
		}
		if s := suggest("outt", flagsOf(cmd)); s == "out" { // one edit from the alias, two from --output
			t.Errorf("the hidden alias was suggested")
		}
	}
}
