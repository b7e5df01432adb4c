package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// The create line is pasted into a shell: every value from the cloud is
// one quoted word, and a name with control characters gets no line (a
// reviewer cannot read it right) but a note.
func TestCreateFlavorCommandHostileNames(t *testing.T) {
	for _, name := range []string{"w 1", "w1;rm -rf /", "$(x)", "it's", "`id`", "w1\nrm -rf /", "esc\x1b[2J", "evil\u202egpj"} {
		t.Run(name, func(t *testing.T) {
			cur := cfl(name, 4, 8192, 80, "hw:tpm_version=2.0", "hw:tpm_model=tpm-crb")
			cur.IsPublic = true
			p := plannedNewFlavor(nova.ModeChangeInput{Release: nova.Gazpacho, Flavor: cur, SizeKnown: true, AccessKnown: true, To: nova.SecretHost})
			if p.Verdict != nova.ModeChangeNoFlavor {
				t.Fatalf("verdict %s", p.Verdict)
			}
			if strings.ContainsAny(name, "\n\x1b\u202e") {
				if p.CreateFlavor != "" || !strings.Contains(strings.Join(p.Needs, "\n"), "control characters") {
					t.Fatalf("a control character in the name: command %q needs %q", p.CreateFlavor, p.Needs)
				}
				return
			}
			if _, err := exec.LookPath("sh"); err != nil {
				t.Skip("no sh")
			}
			// sh splits the line as a shell would: the name stays one word
			out, err := exec.Command("sh", "-c", `set -- `+strings.TrimPrefix(p.CreateFlavor, "vtpmctl flavor create ")+`; printf %s "$1"`).Output()
			if err != nil || string(out) != name+"-host" {
				t.Fatalf("%s: sh read the name as %q (%v)", p.CreateFlavor, out, err)
			}
		})
	}
}

// flavor create makes a public flavor unless told --private: a private
// source flavor gives a private target and a note about its access list.
func TestCreateFlavorCommandAccess(t *testing.T) {
	cur := cfl("w1", 4, 8192, 80, "hw:tpm_version=2.0", "hw:tpm_model=tpm-crb")
	for _, c := range []struct {
		name          string
		public, known bool
		private       bool
		note          string
	}{
		{name: "public", public: true, known: true},
		{name: "private", known: true, private: true, note: "project access"},
		{name: "deleted flavor: access unknown", note: "--private"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cur.IsPublic = c.public
			p := plannedNewFlavor(nova.ModeChangeInput{Release: nova.Gazpacho, Flavor: cur, SizeKnown: true, AccessKnown: c.known, To: nova.SecretHost})
			if strings.Contains(p.CreateFlavor, " --private") != c.private {
				t.Errorf("command %q, private %v", p.CreateFlavor, c.private)
			}
			n := strings.Join(p.Needs, "\n")
			if c.note == "" && (strings.Contains(n, "is private") || strings.Contains(n, "access is unknown")) || !strings.Contains(n, c.note) {
				t.Errorf("needs %q, want a note with %q", n, c.note)
			}
		})
	}
}

// plannedNewFlavor is nova's plan for in, worded by this CLI.
func plannedNewFlavor(in nova.ModeChangeInput) nova.ModeChangePlan {
	p := nova.PlanModeChange(in)
	wordNewFlavor(&p)
	return p
}

func cfl(name string, vcpus, ram, disk int, specs ...string) nova.CloudFlavor {
	m, err := nova.ParseKeyValues(specs)
	if err != nil {
		panic(err)
	}
	return nova.CloudFlavor{ID: name + "-id", VCPUs: vcpus, RAM: ram, Disk: disk, Flavor: nova.Flavor{Name: name, ExtraSpecs: m}}
}
