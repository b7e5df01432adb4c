package main

import (
	"context"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/urfave/cli/v3"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
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
		return err
	}
	*v.dst = r
	return nil
}

func (v releaseValue) String() string {
	if v.dst == nil {
		return ""
	}
	return v.dst.String()
}

func (v releaseValue) Get() any { return *v.dst }

// resolveRelease settles the release by compute.ResolveRelease (the one
// resolution: the flag, else the cloud's compute API; detect also asks
// the cloud when the flag is given, for the note), and prints the warning the same way for every command when the
// open candidates answer differ's question differently (nil: any vTPM rule).
func resolveRelease(ctx context.Context, streams *IOStreams, field nova.Field, flag nova.Release, computeClient *gophercloud.ServiceClient, detect bool, differ func(a, b nova.Release) bool) (nova.ResolvedRelease, error) {
	res, err := compute.ResolveRelease(ctx, computeClient, nova.ReleaseEvidence{Flag: flag, Field: field}, detect)
	if err != nil {
		return res, inWords(err, flagName)
	}
	if w := res.WarningIn(differ, flagName); w != "" {
		warn(streams, "%s", w)
	}
	return res, nil
}

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
