package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"
	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// releaseFlag is the one --nova-release every command that applies
// Nova's rules takes (name overridable for upgrade's --from/--to).
func releaseFlag(name string, dst *nova.Release, usage, def string) cli.Flag {
	if def == "" {
		def = "detected from the cloud"
	}
	return &cli.GenericFlag{Name: name, Usage: usage + " (zed, 2024.2, gazpacho, 26 …)", Value: releaseValue{dst}, DefaultText: def}
}

// releaseValue reads a release flag into a nova.Release (flag.Value):
// the domain type knows no flags.
type releaseValue struct{ dst *nova.Release }

func (v releaseValue) Set(s string) error {
	r, err := nova.ParseRelease(s)
	if err != nil {
		if near := suggest(strings.ToLower(strings.TrimSpace(s)), releaseNames()); near != "" {
			return fmt.Errorf("no such Nova release (did you mean %q?)", near)
		}
		return err
	}
	*v.dst = r
	return nil
}

// releaseNames are the code names a mistyped release is compared with
// (a series or a number one digit off is another release, not a typo).
func releaseNames() []string {
	var out []string
	for _, r := range nova.Releases() {
		out = append(out, r.Info().Codename)
	}
	return out
}

func (v releaseValue) String() string {
	if v.dst == nil {
		return ""
	}
	return v.dst.String()
}

func (v releaseValue) Get() any { return *v.dst }

// warnRelease prints the release warning the way resolveRelease does.
func warnRelease(streams *IOStreams, r nova.ResolvedRelease) {
	if w := r.WarningIn(nil, flagName); w != "" {
		warn(streams, "%s", w)
	}
}

// novaRelease is the --nova-release every image and volume command takes,
// as evidence for the release resolution.
func novaRelease(r nova.Release) nova.ReleaseEvidence {
	return nova.ReleaseEvidence{Flag: r, Field: nova.FieldRelease}
}
