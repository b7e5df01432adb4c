package main

import (
	"fmt"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/quote"
)

// wordNewFlavor words a mode plan's flavor to create (nova.NewFlavor) in
// this CLI's own terms: the vtpmctl flavor create line, meant to be
// pasted into a shell (every value from the cloud quoted; a name with
// control characters gets no line, one command would read as several,
// but a note), and the notes its flags need, ahead of the plan's own.
func wordNewFlavor(p *nova.ModeChangePlan) {
	f := p.NewFlavor
	if f == nil {
		return
	}
	line, notes := flavorCreateLine(f)
	p.CreateFlavor = line
	if f.Ephemeral > 0 {
		// flavor create makes no ephemeral disk: the resize would fail
		notes = append(notes, fmt.Sprintf("the new flavor needs an ephemeral disk of at least %d GB (the libvirt driver refuses a smaller one; vtpmctl flavor create makes none: openstack flavor create --ephemeral)", f.Ephemeral))
	}
	p.Needs = append(notes, p.Needs...)
}

// flavorCreateLine is f as a vtpmctl flavor create command. flavor
// create makes a public flavor unless told --private, so a private
// source flavor says so.
func flavorCreateLine(f *nova.NewFlavor) (string, []string) {
	var notes []string
	if quote.HasControl(f.Name) || quote.HasControl(f.TPMVersion) || quote.HasControl(f.TPMModel) {
		return "", []string{"no flavor create line: the flavor name " + quote.Shell(quote.OneLine(f.Source)) + " has control characters; create the flavor by hand"}
	}
	cmd := "vtpmctl flavor create " + quote.Shell(f.Name)
	if f.SizeKnown {
		cmd += fmt.Sprintf(" --vcpus %d --ram %d --disk %d", f.VCPUs, f.RAM, f.Disk)
	} else {
		cmd += " --vcpus N --ram MB --disk GB"
	}
	switch {
	case f.AccessUnknown:
		notes = append(notes, "the access of flavor "+quote.Shell(f.Source)+" is unknown (not in the flavor list): if it was private, add --private and a --project for each project that had access")
	case f.Private:
		cmd += " --private"
		notes = append(notes, "flavor "+quote.Shell(f.Source)+" is private: copy its project access to the new flavor (a --project for each project in its access list)")
	}
	cmd += " --tpm-version " + quote.Shell(f.TPMVersion) + " --tpm-model " + quote.Shell(f.TPMModel) + " --secret-security " + quote.Shell(string(f.SecretSecurity))
	return cmd, notes
}
