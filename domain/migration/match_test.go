package migration

import (
	"errors"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

func TestParseMatch(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want MatchRule
		err  string
	}{
		{in: "web01=web01-new", want: MatchRule{VM: "web01", Server: "web01-new"}},
		{in: "{vm}-win", want: MatchRule{Template: "{vm}-win"}},
		{in: "{vcenter}-{vm}", want: MatchRule{Template: "{vcenter}-{vm}"}},
		{in: "{vcenter}-x", err: "with {vm}"},
		{in: "{vm}-{name}", err: "with {vm}"},
		{in: "web01", err: "expected VM=SERVER"},
		{in: "=x", err: "expected VM=SERVER"},
		{in: "x=", err: "expected VM=SERVER"},
	} {
		got, err := ParseMatch(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %+v %v", tc.in, got, err)
		}
	}
}

// TestMatchErrorWords: a bad rule is a typed error that the caller words
// with its option and what its rules name (plan apply names volumes).
func TestMatchErrorWords(t *testing.T) {
	for _, tc := range []struct {
		in, verify, apply string
	}{
		{"web01", `--match "web01": expected VM=SERVER or a template with {vm}`, `--match "web01": expected VM=VOLUME or a template with {vm}`},
		// the value is quoted as given, whatever it holds
		{"SERVER", `--match "SERVER": expected VM=SERVER or a template with {vm}`, `--match "SERVER": expected VM=VOLUME or a template with {vm}`},
		{"{vcenter}-x", `--match "{vcenter}-x": a template names the server with {vm} (and optionally {vcenter}), e.g. {vm}-win`,
			`--match "{vcenter}-x": a template names the server with {vm} (and optionally {vcenter}), e.g. {vm}-win`},
	} {
		_, err := ParseMatch(tc.in)
		var me *MatchError
		if !errors.As(err, &me) || me.Value != tc.in || me.Template != strings.Contains(tc.in, "{") {
			t.Fatalf("%q: %#v", tc.in, err)
		}
		if got := me.Message("--match", "SERVER"); got != tc.verify {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.verify)
		}
		if got := me.Message("--match", "VOLUME"); got != tc.apply {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.apply)
		}
		if strings.Contains(err.Error(), "--") {
			t.Errorf("%q: the error names a flag: %v", tc.in, err)
		}
	}
}

func TestMatchServers(t *testing.T) {
	img := func(src string) *nova.Image {
		return &nova.Image{Name: "img-" + src, Properties: map[string]string{SourceKey: src}}
	}
	inv := nova.Inventory{Servers: map[string]nova.Server{
		"a1": {ID: "a1", Name: "app", Metadata: map[string]string{SourceKey: "vc01/vm-1"}},
		"a2": {ID: "a2", Name: "app"},
		"b1": {ID: "b1", Name: "db-copy", Image: img("vc02/vm-1")},
		"c1": {ID: "c1", Name: "web-ostack"},
		"c2": {ID: "c2", Name: "web"},
		"d1": {ID: "d1", Name: "dup"}, "d2": {ID: "d2", Name: "dup"},
		"e1": {ID: "e1", Name: "explicit"},
	}}
	p := &Plan{VMs: []PlanVM{
		{Name: "app", VCenter: "https://vc01/sdk", MoRef: "vm-1"}, // metadata beats the name (two "app")
		{Name: "app", VCenter: "vc02", MoRef: "vm-1"},             // same name on another vCenter: its image
		{Name: "web"},  // the template beats the name
		{Name: "dup"},  // ambiguous
		{Name: "gone"}, // nothing
		{Name: "byrule", VCenter: "vc03", MoRef: "vm-9"},       // explicit rule by ID
		{Name: "byname-rule", VCenter: "vc03", MoRef: "vm-10"}, // explicit rule by name
	}}
	rules := []MatchRule{{Template: "{vm}-ostack"}, {VM: "byrule", Server: "e1"}, {VM: "byname-rule", Server: "explicit"}}
	m := MatchServers(p, inv, rules)
	want := []struct{ ids, by string }{
		{"a1", "server metadata " + SourceKey},
		{"b1", "image metadata " + SourceKey},
		{"c1", "template {vm}-ostack"},
		{"d1,d2", "name"},
		{"", ""},
		{"e1", "match rule"},
		{"e1", "match rule"},
	}
	for i, w := range want {
		got := m[i]
		if strings.Join(got.ServerIDs, ",") != w.ids || got.By != w.by {
			t.Errorf("%d %s: %+v, want %s by %s", i, p.VMs[i].Name, got, w.ids, w.by)
		}
	}
	if p.VMs[0].Source() != "vc01/vm-1" || (PlanVM{Name: "x"}).Source() != "x" || (PlanVM{Name: "x", BIOSUUID: "u"}).Source() != "u" {
		t.Errorf("sources %q", p.VMs[0].Source())
	}
	// The same VM name on two vCenters matched by name to one server: each
	// names the other by its source.
	twin := &Plan{VMs: []PlanVM{{Name: "web", VCenter: "vc01", MoRef: "vm-50"}, {Name: "web", VCenter: "vc02", MoRef: "vm-50"}}}
	tr := Verify(twin, VerifyInput{Inventory: inv, Matches: MatchServers(twin, inv, nil)})
	if f := strings.Join(tr.VMs[0].Findings, ";"); !strings.Contains(f, "also matches planned VM(s) web (vc02/vm-50)") {
		t.Errorf("twins: %v", tr.VMs[0].Findings)
	}
	// Two planned VMs on one server: both say so.
	r := Verify(p, VerifyInput{Inventory: inv, Matches: m})
	for _, v := range r.VMs {
		if strings.HasPrefix(v.VM, "by") && !strings.Contains(strings.Join(v.Findings, ";"), "also matches planned VM") {
			t.Errorf("%s: %v", v.VM, v.Findings)
		}
		if v.VM == "dup" && !strings.Contains(strings.Join(v.Findings, ";"), "2 servers match (by name)") {
			t.Errorf("dup: %v", v.Findings)
		}
	}
}

// FuzzParseMatch: any --match value is a rule or a one-line error; a
// template always names the VM, so two VMs never share a server name.
func FuzzParseMatch(f *testing.F) {
	for _, s := range []string{"a=b", "{vm}-x", "{vcenter}{vm}", "{", "=", "{vm}={vm}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseMatch(s)
		switch {
		case err != nil:
			if strings.ContainsRune(err.Error(), '\n') && !strings.ContainsRune(s, '\n') {
				t.Errorf("%q: multi-line error", s)
			}
		case r.Template != "" && !strings.Contains(r.Template, "{vm}"):
			t.Errorf("%q: template without {vm}", s)
		case r.Template == "" && (r.VM == "" || r.Server == ""):
			t.Errorf("%q: empty rule %+v", s, r)
		}
	})
}
