package migration

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/advice"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// verifyCloud is a small cloud: servers with their flavor, image and
// metadata, built the way app/inventory.List sorts them.
func verifyCloud(rel nova.Release, srvs ...nova.Server) nova.Inventory {
	inv := nova.Inventory{Others: map[string]nova.OtherServer{}, Servers: map[string]nova.Server{}}
	for _, s := range srvs {
		if s.Status == "" {
			s.Status = "ACTIVE"
		}
		inv.Servers[s.ID] = s
		img := nova.Image{}
		if s.Image != nil {
			img = *s.Image
		}
		if s.BootVolume != nil { // Nova reads a volume-backed server's boot volume
			img = *s.BootVolume
		}
		d := nova.Decide(s.Flavor, img, rel)
		if !d.VTPM {
			inv.Others[s.ID] = nova.OtherServer{Name: s.Name}
			continue
		}
		mode := d.SecretSecurity
		if mode == "" {
			mode = "user"
		}
		inv.Guests.Add(nova.VTPMGuest{ServerID: s.ID, Name: s.Name, ProjectID: s.ProjectID, Host: s.Host, Version: d.Version, Model: d.Model, Mode: mode})
	}
	return inv
}

var (
	crbFlavor = nova.Flavor{Name: "vtpm.crb", ExtraSpecs: map[string]string{"hw:tpm_version": "2.0", "hw:tpm_model": "tpm-crb", "os:secure_boot": "required"}}
	tisFlavor = nova.Flavor{Name: "vtpm.tis", ExtraSpecs: map[string]string{"hw:tpm_version": "2.0"}}
	plainFl   = nova.Flavor{Name: "m1", ExtraSpecs: map[string]string{}}
	uefiImg   = &nova.Image{Name: "uefi", Properties: map[string]string{"hw_firmware_type": "uefi"}}
	biosImg   = &nova.Image{Name: "bios", Properties: map[string]string{}}
)

func winVM(name string) PlanVM {
	return PlanVM{Name: name, VCenter: "https://vc01.example.com/sdk", MoRef: "vm-" + name, Firmware: "efi", SecureBoot: "yes",
		TargetVTPM: "2.0 tpm-crb", TargetFlavor: "vtpm.crb", TargetImage: "vc01.example.com-" + name}
}

func TestVerify(t *testing.T) {
	rel := nova.Gazpacho
	p := &Plan{Version: 1, VMs: []PlanVM{
		winVM("ok"), winVM("wrong-model"), winVM("no-vtpm"),
		{Name: "linux", TargetVTPM: "none", Firmware: "bios", SecureBoot: "no"},
		winVM("gone"),
		winVM("bios-image"),
		{Name: "w11-bios", TargetVTPM: "none", Firmware: "bios", SecureBoot: "no", FollowUp: []string{"mbr2gpt"}},
	}}
	p.VMs[1].BitLockerEscrow, p.VMs[2].BitLockerEscrow = "unconfirmed", "confirmed"
	inv := verifyCloud(rel,
		nova.Server{ID: "s1", Name: "ok", ProjectID: "p", Host: "cmp1", Flavor: crbFlavor, Image: uefiImg},
		nova.Server{ID: "s2", Name: "wrong-model", Host: "cmp1", Flavor: tisFlavor, Image: uefiImg},
		nova.Server{ID: "s3", Name: "no-vtpm", Flavor: plainFl, Image: uefiImg},
		nova.Server{ID: "s4", Name: "linux", Flavor: plainFl, Image: biosImg},
		nova.Server{ID: "s6", Name: "bios-image", Host: "cmp1", Flavor: crbFlavor, Image: biosImg},
		nova.Server{ID: "s7", Name: "w11-bios", Flavor: plainFl, Image: uefiImg},
	)
	in := VerifyInput{Inventory: inv, Release: rel, Matches: MatchServers(p, inv, nil),
		HostTraits: map[string][]string{"cmp1": {"COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_CRB", "COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER"}},
		Secrets:    map[string]vtpmsecret.GuestResult{"s1": {SecretID: "sec1", Findings: []vtpmsecret.Finding{{Check: "SECRET-EXISTS", Status: result.Pass}}}},
		Reports:    map[string]hostcheck.Report{"cmp1": {Host: "cmp1", VTPMGuests: []hostcheck.Guest{{UUID: "s1", Version: "2.0", Model: "tpm-crb"}}}},
	}
	r := Verify(p, in)
	type want struct {
		verdict string
		failed  []string // checks that fail
	}
	wants := map[string]want{
		"ok":          {Verified, nil},
		"wrong-model": {Missing, []string{CheckVTPM, CheckSecureBoot, CheckHostTraits, CheckDomainTPM}},
		"no-vtpm":     {Missing, []string{CheckVTPM, CheckSecureBoot}},
		"linux":       {Verified, nil},
		"gone":        {NotFound, nil},
		"bios-image":  {Missing, []string{CheckFirmware, CheckDomainTPM}},
		"w11-bios":    {Missing, []string{CheckFirmware}},
	}
	for _, v := range r.VMs {
		w := wants[v.VM]
		var failed []string
		for _, c := range v.Checks {
			if c.Status == result.Fail {
				failed = append(failed, c.Check)
				if c.Remedy == "" {
					t.Errorf("%s %s: no remedy", v.VM, c.Check)
				}
			}
		}
		if v.Verdict != w.verdict || strings.Join(failed, ",") != strings.Join(w.failed, ",") {
			t.Errorf("%s: %s, failed %v; want %s %v\n%+v", v.VM, v.Verdict, failed, w.verdict, w.failed, v.Checks)
		}
	}
	if !r.Failed() || r.Verified != 2 || r.Missing != 4 || r.NotFound != 1 || strings.Join(r.Unconfirmed, ",") != "wrong-model" {
		t.Errorf("%+v", r)
	}
	// The secret of s2 was not audited (a skip that says so); cmp1 lacks
	// the TIS trait this guest needs on 2026.1.
	for _, v := range r.VMs {
		if v.VM == "wrong-model" {
			for _, c := range v.Checks {
				if c.Check == CheckSecret && (c.Status != result.Skip || c.Message != "not audited") {
					t.Errorf("secret: %+v", c)
				}
				if c.Check == CheckHostTraits && !strings.Contains(c.Message, "does not report COMPUTE_SECURITY_TPM_TIS") {
					t.Errorf("traits: %+v", c)
				}
			}
		}
	}
	if s := r.Suites(); len(s[0].Cases) < len(p.VMs) {
		t.Errorf("junit cases %d", len(s[0].Cases))
	}
}

// BenchmarkVerify5000: a 5,000-VM plan against 20,000 servers, matched
// through every rule kind and checked: indexes, never a scan per VM.
func BenchmarkVerify5000(b *testing.B) {
	rel := nova.Gazpacho
	p := &Plan{Version: 1}
	var srvs []nova.Server
	for i := 0; i < 20000; i++ {
		s := nova.Server{ID: fmt.Sprintf("s%05d", i), Name: fmt.Sprintf("srv-%05d", i), Host: "cmp1", Flavor: crbFlavor, Image: uefiImg}
		if i%4 == 1 {
			s.Metadata = map[string]string{SourceKey: fmt.Sprintf("vc01/vm-%d", i)}
		}
		srvs = append(srvs, s)
	}
	for i := 0; i < 5000; i++ {
		vm := winVM(fmt.Sprintf("srv-%05d", i*4))
		vm.VCenter, vm.MoRef = "vc01", fmt.Sprintf("vm-%d", i*4+1)
		p.VMs = append(p.VMs, vm)
	}
	inv := verifyCloud(rel, srvs...)
	rules := []MatchRule{{Template: "{vm}-win"}}
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		r := Verify(p, VerifyInput{Inventory: inv, Release: rel, Matches: MatchServers(p, inv, rules)})
		if r.Verified != 5000 {
			b.Fatalf("%d verified", r.Verified)
		}
	}
}

// TestSecretCheckNamesWhatWasNotRead: a secrets audit that passed but did
// not read a part (the ACL under --no-acls, or one it could not read)
// says so in the SECRET check, instead of an unqualified pass.
func TestSecretCheckNamesWhatWasNotRead(t *testing.T) {
	srv := nova.Server{ID: "s1"}
	pass := vtpmsecret.Finding{Check: "SECRET-EXISTS", Status: result.Pass, Message: "secret sec1"}
	project := vtpmsecret.Finding{Check: "PROJECT", Status: result.Skip, Message: "not auditable: its project was not audited"}
	cases := []struct {
		name       string
		findings   []vtpmsecret.Finding
		notAudited bool
		status     result.Status
		want       string
	}{
		{"all read", []vtpmsecret.Finding{pass, {Check: "SECRET-ACL", Status: result.Pass}}, false, result.Pass, "(secrets audit passed)"},
		{"--no-acls", []vtpmsecret.Finding{pass, {Check: "SECRET-ACL", Status: result.Skip, Message: "ACL not read"}}, false, result.Pass, "not checked: SECRET-ACL: ACL not read"},
		{"ACL error", []vtpmsecret.Finding{pass, {Check: "SECRET-ACL", Status: result.Skip, Message: "ACL could not be read: 503"}}, false, result.Pass, "SECRET-ACL: ACL could not be read: 503"},
		{"failed", []vtpmsecret.Finding{pass, {Check: "SECRET-OWNER", Status: result.Fail, Message: "owned by x"}}, false, result.Fail, "SECRET-OWNER: owned by x"},
		// Findings are found by their status, not their place: a skip
		// listed first is still named, and a not-audited guest's reason
		// is its skip wherever it is.
		{"skip first", []vtpmsecret.Finding{{Check: "SECRET-ACL", Status: result.Skip, Message: "ACL not read"}, pass}, false, result.Pass, "not checked: SECRET-ACL: ACL not read"},
		{"not audited", []vtpmsecret.Finding{project}, true, result.Skip, "not auditable: its project was not audited"},
		{"not audited, skip second", []vtpmsecret.Finding{pass, project}, true, result.Skip, "not auditable: its project was not audited"},
		{"not audited, no finding", nil, true, result.Skip, "not audited"},
	}
	for _, tc := range cases {
		in := VerifyInput{Secrets: map[string]vtpmsecret.GuestResult{"s1": {SecretID: "sec1", Findings: tc.findings, NotAudited: tc.notAudited}}}
		c := secretCheck(srv, in)
		if c.Status != tc.status || !strings.Contains(c.Message, tc.want) {
			t.Errorf("%s: %s %q, want %s %q", tc.name, c.Status, c.Message, tc.status, tc.want)
		}
	}
}

// flagWords spell options as a caller with flags does (a test's map).
type flagWords map[advice.Option]string

func (w flagWords) Option(o advice.Option) string   { return w[o] }
func (w flagWords) Command(c advice.Command) string { return "vtpmctl " + string(c) }

// TestVerifyNamesCallersMatchFlag: the remedies that tie a VM to a server
// name the caller's flag (VerifyInput.Words spelling OptionMatch), never
// a spelling of their own; without words they name the server metadata
// only.
func TestVerifyNamesCallersMatchFlag(t *testing.T) {
	inv := nova.Inventory{Servers: map[string]nova.Server{"s1": {ID: "s1", Name: "web", Status: "ACTIVE"}}}
	p := &Plan{VMs: []PlanVM{{Name: "web", VCenter: "vc01", MoRef: "vm-1", TargetVTPM: "none"}, {Name: "web", VCenter: "vc02", MoRef: "vm-2", TargetVTPM: "none"},
		{Name: "gone", TargetImage: "img", TargetFlavor: "fl", TargetVTPM: "none"}}}
	m := map[int]Match{0: {ServerIDs: []string{"s1"}, By: "name"}, 1: {ServerIDs: []string{"s1"}, By: "name"}}
	for _, tc := range []struct{ flag, notFound, twin string }{
		{"--match", "tie an existing one to it: --match gone=SERVER, or server metadata vtpmctl:source=gone", "tie each to its own server with --match or vtpmctl:source"},
		{"--tie", "tie an existing one to it: --tie gone=SERVER, or server metadata vtpmctl:source=gone", "tie each to its own server with --tie or vtpmctl:source"},
		{"", "tie an existing one to it: server metadata vtpmctl:source=gone", "tie each to its own server with vtpmctl:source"},
	} {
		var words advice.Words
		if tc.flag != "" {
			words = flagWords{OptionMatch: tc.flag}
		}
		r := Verify(p, VerifyInput{Inventory: inv, Matches: m, Words: words})
		if got := r.VMs[2].Remedy; !strings.HasSuffix(got, tc.notFound) {
			t.Errorf("flag %q: not found remedy %q, want ...%q", tc.flag, got, tc.notFound)
		}
		if got := strings.Join(r.VMs[0].Findings, ";"); !strings.HasSuffix(got, tc.twin) {
			t.Errorf("flag %q: findings %q, want ...%q", tc.flag, got, tc.twin)
		}
		if b, _ := json.Marshal(r); tc.flag == "" && strings.Contains(string(b), "--") {
			t.Errorf("no flag given, one named: %s", b)
		}
	}
}
