package main

import "github.com/vtpmctl/vtpmctl/domain/advice"

// cliWords spell what a finding tells its reader to do (advice.Option,
// advice.Command) as this CLI's flags and command lines: the one place
// the rules' advice meets the flags' names (TestCLIWords holds both).
type cliWords struct{}

var optionFlags = map[advice.Option]string{
	advice.Root:          "--root",
	advice.NovaRoot:      "--nova-root",
	advice.LibvirtRoot:   "--libvirt-root",
	advice.Layout:        "--layout",
	advice.LibvirtURI:    "--libvirt-uri",
	advice.NovaConf:      "--nova-conf",
	advice.NovaConfigDir: "--nova-config-dir",
	advice.CleanupPlan:   "--cleanup-plan",
	advice.Drain:         "--drain",
	advice.HostReports:   "--host-reports",
}

func (cliWords) Option(o advice.Option) string {
	if f, ok := optionFlags[o]; ok {
		return f
	}
	return string(o)
}

func (cliWords) Command(c advice.Command) string { return "vtpmctl " + string(c) }
