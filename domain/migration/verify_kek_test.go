package migration

import (
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/advice"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

type progWords struct{}

func (progWords) Option(o advice.Option) string   { return "--" + string(o) }
func (progWords) Command(c advice.Command) string { return "prog " + string(c) }

// TestDomainCheckMissingKEK: a cut-over guest whose NVRAM lacks the 2023
// KEK is a warning on DOMAIN-TPM (never a failure: it boots, its vTPM is
// there), saying Windows cannot add the KEK and the guest takes no future
// db/dbx update; the fix is its host's remedy, in the caller's words,
// after the high risk's escrow and before the check's own hard reboot.
// A guest with the KEK (db lacking only, or all there) gets no such word.
func TestDomainCheckMissingKEK(t *testing.T) {
	const (
		kek = "KEK Microsoft Corporation KEK 2K CA 2023"
		win = "db Windows UEFI CA 2023"
	)
	view := func(risk hostcheck.Risk, c hostcheck.Certs, kept hostcheck.TriState, missing ...string) *hostcheck.GuestBitLocker {
		return &hostcheck.GuestBitLocker{Risk: risk, SecureBoot: true, Certs: c, NVRAMKept: kept, TPMStateKept: "yes", Missing: missing,
			CertsRemedy: hostcheck.CertRemedyOf(c, kept), Reasons: []string{"db/KEK lack the 2023 certificates"}}
	}
	const lacks = "its NVRAM lacks the 2023 KEK (Microsoft Corporation KEK 2K CA 2023): Windows cannot add it itself, and the guest takes no future db/dbx update until it is added offline on cmp1"
	cases := []struct {
		name   string
		model  string // the domain's; Nova gives tpm-crb
		view   *hostcheck.GuestBitLocker
		status result.Status
		msg    string   // in the message ("" none of lacks)
		remedy []string // in the remedy, in this order (nil: no remedy)
	}{
		{"kept: update its NVRAM", "tpm-crb", view(hostcheck.RiskMedium, hostcheck.Certs2011, "yes", kek, win), result.Warn, lacks,
			[]string{"add the 2023 KEK and db certificates to server s1's NVRAM on cmp1 with the guest stopped (prog host secure-boot update)", "adding the KEK changes PCR 7"}},
		{"partial, KEK missing", "tpm-crb", view(hostcheck.RiskMedium, hostcheck.CertsPartial, "yes", kek), result.Warn, lacks,
			[]string{"(prog host secure-boot update)"}},
		{"recreated: the template, escrow first", "tpm-crb", view(hostcheck.RiskHigh, hostcheck.Certs2011, "no", kek, win), result.Warn, lacks,
			[]string{"escrow the guest's BitLocker recovery key now", "cmp1's Nova recreates the NVRAM from the template", "ovmf 2026.08, forky", "or update Nova to keep NVRAM"}},
		{"host unknown", "tpm-crb", view(hostcheck.RiskUnknown, hostcheck.Certs2011, "unknown", kek), result.Warn, lacks,
			[]string{"whether cmp1 keeps the guest's NVRAM is unknown: run prog host check there", "(prog host secure-boot update)"}},
		{"wrong model too: still a failure, hard reboot last", "tpm-tis", view(hostcheck.RiskMedium, hostcheck.Certs2011, "yes", kek), result.Fail, lacks,
			[]string{"(prog host secure-boot update)", "hard-reboot the server"}},
		{"KEK there, db lacking: no warning", "tpm-crb", view(hostcheck.RiskMedium, hostcheck.CertsPartial, "yes", win), result.Pass, "", nil},
		{"all there", "tpm-crb", view(hostcheck.RiskLow, hostcheck.Certs2023, "yes"), result.Pass, "", nil},
		{"site keys: no Microsoft KEK to want", "tpm-crb", view(hostcheck.RiskLow, hostcheck.CertsOther, "yes"), result.Pass, "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := nova.Server{ID: "s1", Host: "cmp1"}
			g := nova.VTPMGuest{ServerID: "s1", Version: "2.0", Model: "tpm-crb"}
			in := VerifyInput{Words: progWords{}, Reports: map[string]hostcheck.Report{"cmp1": {Host: "cmp1",
				VTPMGuests: []hostcheck.Guest{{UUID: "s1", Version: "2.0", Model: tc.model, BitLocker: tc.view}}}}}
			c := domainCheck(srv, g, in)
			if c.Status != tc.status {
				t.Errorf("status %s, want %s: %s", c.Status, tc.status, c.Message)
			}
			if tc.msg != "" && !strings.Contains(c.Message, tc.msg) || tc.msg == "" && strings.Contains(c.Message, "lacks the 2023 KEK") {
				t.Errorf("message %q", c.Message)
			}
			at := -1
			for _, r := range tc.remedy {
				i := strings.Index(c.Remedy, r)
				if i <= at {
					t.Errorf("remedy lacks %q after the previous part: %s", r, c.Remedy)
				}
				at = i
			}
			if tc.remedy == nil && c.Remedy != "" {
				t.Errorf("remedy %q", c.Remedy)
			}
			if c.BitLocker == nil || c.BitLocker.CertsRemedy != tc.view.CertsRemedy {
				t.Errorf("the view's remedy did not reach the check: %+v", c.BitLocker)
			}
		})
	}
}

// TestVerifyMissingKEKFinding: through Verify, the guest stays verified
// and its findings say the KEK is missing, with the fix.
func TestVerifyMissingKEKFinding(t *testing.T) {
	rel := nova.Gazpacho
	p := &Plan{Version: 1, VMs: []PlanVM{winVM("old-nvram")}}
	inv := verifyCloud(rel, nova.Server{ID: "s1", Name: "old-nvram", Host: "cmp1", Flavor: crbFlavor, Image: uefiImg})
	b := &hostcheck.GuestBitLocker{Risk: hostcheck.RiskMedium, Certs: hostcheck.Certs2011, NVRAMKept: "yes", TPMStateKept: "yes",
		Missing: []string{"KEK Microsoft Corporation KEK 2K CA 2023"}} // a report from before certs_remedy: derived
	in := VerifyInput{Inventory: inv, Release: rel, Matches: MatchServers(p, inv, nil), Words: progWords{}, Reports: map[string]hostcheck.Report{
		"cmp1": {Host: "cmp1", VTPMGuests: []hostcheck.Guest{{UUID: "s1", Version: "2.0", Model: "tpm-crb", BitLocker: b}}}}}
	r := Verify(p, in)
	if r.Failed() || r.Verified != 1 {
		t.Fatalf("%d verified, %d missing: %+v", r.Verified, r.Missing, r.VMs)
	}
	f := strings.Join(r.VMs[0].Findings, " | ")
	for _, w := range []string{"DOMAIN-TPM: ", "its NVRAM lacks the 2023 KEK", "(fix: add the 2023 KEK and db certificates to server s1's NVRAM on cmp1 with the guest stopped (prog host secure-boot update)"} {
		if !strings.Contains(f, w) {
			t.Errorf("findings lack %q: %s", w, f)
		}
	}
	if r.VMs[0].Remedy != "" {
		t.Errorf("a verified VM's remedy %q", r.VMs[0].Remedy)
	}
}
