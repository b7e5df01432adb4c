package main

import (
	"github.com/urfave/cli/v3"
	"github.com/vtpmctl/vtpmctl/nova"
)

// propertyChange is what image set|unset and volume set|unset share: the
// vTPM/Windows request, its selection, and the checks made before any
// request. One copy, so the two nouns cannot drift apart.
type propertyChange struct {
	Set     bool // set, or unset
	Select  []string
	Version string
	Model   string
	Windows bool
	DryRun  bool
	Release nova.Release
}

// setFlags are the flags set takes for either noun.
func (p *propertyChange) setFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "tpm-version", Usage: "`VERSION` 1.2 or 2.0", Destination: &p.Version},
		&cli.StringFlag{Name: "tpm-model", Usage: "`MODEL` tpm-tis or tpm-crb", Destination: &p.Model},
		&cli.BoolFlag{Name: "windows", Usage: "the Windows-ready profile: TPM 2.0 + CRB (overridable), UEFI, q35, Secure Boot required, os_type/os_distro windows", Destination: &p.Windows},
		releaseFlag("nova-release", &p.Release, "Nova `RELEASE` for the flavor conflict warnings", ""),
	}
}

// unsetFlags are the flags unset takes for either noun.
func (p *propertyChange) unsetFlags() []cli.Flag {
	return []cli.Flag{&cli.BoolFlag{Name: "windows", Usage: "also remove the Windows profile's keys that still hold the profile's values", Destination: &p.Windows}}
}

// request checks the change before any request (one usage line, exit 2)
// and returns it with its selector. noun and what name the objects in
// the messages ("image", "IMAGE").
func (p *propertyChange) request(noun, what string, names []string) (nova.ImageRequest, map[string]string, error) {
	selector, err := nova.ParseKeyValues(p.Select)
	if err != nil {
		return nova.ImageRequest{}, nil, usagef("--select: %w", err)
	}
	if len(names) == 0 && len(selector) == 0 {
		return nova.ImageRequest{}, nil, usagef("%s %s: name at least one %s or --select KEY=VALUE", noun, verb(p.Set), what)
	}
	if p.Set {
		if err := nova.ValidateTPM(p.Version, p.Model); err != nil {
			return nova.ImageRequest{}, nil, err
		}
		if p.Version == "" && !p.Windows {
			return nova.ImageRequest{}, nil, usagef("%s set: needs --tpm-version (or --windows)", noun)
		}
	}
	return nova.ImageRequest{TPMVersion: p.Version, TPMModel: p.Model, Windows: p.Windows}, selector, nil
}
