package migration

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// TestDomainCheckNVRAMView: DOMAIN-TPM carries the guest's NVRAM view
// from its host's report (typed, and in the detail line); risk high is a
// warning with the reason and the fix, never a failure; a report from
// before host check had the view says so instead of saying nothing.
func TestDomainCheckNVRAMView(t *testing.T) {
	high := &hostcheck.GuestBitLocker{Risk: hostcheck.RiskHigh, SecureBoot: true, Certs: hostcheck.Certs2011, NVRAMKept: "no", TPMStateKept: "yes",
		Missing: []string{"KEK Microsoft Corporation KEK 2K CA 2023"}, Reasons: []string{"this host recreates the NVRAM from the template on stop/start and hard reboot (NVRAM-KEPT, bug 2131730)"}}
	low := &hostcheck.GuestBitLocker{Risk: hostcheck.RiskLow, SecureBoot: true, Certs: hostcheck.Certs2023, NVRAMKept: "yes", TPMStateKept: "yes",
		Reasons: []string{"TPM state and NVRAM survive, and the 2023 certificates are enrolled"}}
	medium := &hostcheck.GuestBitLocker{Risk: hostcheck.RiskMedium, Certs: hostcheck.Certs2011, NVRAMKept: "yes", TPMStateKept: "yes",
		Reasons: []string{"db/KEK lack the 2023 certificates"}}
	bios := &hostcheck.GuestBitLocker{Risk: hostcheck.RiskLow, Certs: hostcheck.CertsNoNVRAM, TPMStateKept: "yes", Reasons: []string{"no UEFI NVRAM (BIOS guest)"}}
	cases := []struct {
		name     string
		model    string // the domain's <tpm> model; Nova gives tpm-crb
		view     *hostcheck.GuestBitLocker
		status   result.Status
		msg      []string // in the detail line
		remedy   []string // in the remedy, in this order
		notCheck bool     // bitlocker_not_checked set, no view
	}{
		{"high: warning with reason and fix", "tpm-crb", high, result.Warn,
			[]string{"has its <tpm> 2.0 tpm-crb", "BitLocker-recovery risk high", "NVRAM kept no", "certificates 2011", "NVRAM-KEPT, bug 2131730"},
			[]string{"escrow the guest's BitLocker recovery key", "update Nova on cmp1", "manage-bde -protectors -disable C:"}, false},
		{"low: ok with the view", "tpm-crb", low, result.Pass,
			[]string{"has its <tpm> 2.0 tpm-crb", "BitLocker-recovery risk low", "NVRAM kept yes", "vTPM state kept yes", "certificates 2023", "2023 certificates are enrolled"}, nil, false},
		{"medium: ok with the view", "tpm-crb", medium, result.Pass, []string{"BitLocker-recovery risk medium", "lack the 2023 certificates"}, nil, false},
		{"BIOS guest: no NVRAM to keep", "tpm-crb", bios, result.Pass, []string{"risk low (vTPM state kept yes, certificates no-nvram)"}, nil, false},
		{"report before the view: not in the report", "tpm-crb", nil, result.Pass,
			[]string{"has its <tpm> 2.0 tpm-crb", "NVRAM view not checked: not in the host's check report"}, nil, true},
		// The failure stays a failure; its hard reboot comes after the
		// suspension the high risk asks for.
		{"wrong model and high: fail, suspend first", "tpm-tis", high, result.Fail, []string{"has a <tpm> 2.0 tpm-tis", "risk high"},
			[]string{"suspend BitLocker inside the guest", "hard-reboot the server"}, false},
		{"wrong model, old report: fail, not in the report", "tpm-tis", nil, result.Fail, []string{"has a <tpm> 2.0 tpm-tis", "NVRAM view not checked"},
			[]string{"hard-reboot the server"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := nova.Server{ID: "s1", Host: "cmp1"}
			g := nova.VTPMGuest{ServerID: "s1", Version: "2.0", Model: "tpm-crb"}
			in := VerifyInput{Reports: map[string]hostcheck.Report{"cmp1": {Host: "cmp1",
				VTPMGuests: []hostcheck.Guest{{UUID: "s1", Version: "2.0", Model: tc.model, BitLocker: tc.view}}}}}
			c := domainCheck(srv, g, in)
			if c.Status != tc.status {
				t.Errorf("status %s, want %s: %+v", c.Status, tc.status, c)
			}
			for _, m := range tc.msg {
				if !strings.Contains(c.Message, m) {
					t.Errorf("message lacks %q: %s", m, c.Message)
				}
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
				t.Errorf("remedy for a passed check: %s", c.Remedy)
			}
			if tc.notCheck != (c.BitLockerNotChecked != "") || tc.notCheck == (c.BitLocker != nil) {
				t.Errorf("view %+v, not checked %q", c.BitLocker, c.BitLockerNotChecked)
			}
			if tc.view != nil && (c.BitLocker.Risk != tc.view.Risk || c.BitLocker.NVRAMKept != tc.view.NVRAMKept || c.BitLocker.Certs != tc.view.Certs) {
				t.Errorf("view %+v, want %+v", c.BitLocker, tc.view)
			}
		})
	}
}

// TestVerifyNVRAMView: through Verify, a high-risk guest stays verified
// (a warning: its domain has its TPM) with the reason and fix in its
// findings; an old report's missing view is a finding too; the JSON
// carries the view under the check, the existing fields as they were.
func TestVerifyNVRAMView(t *testing.T) {
	rel := nova.Gazpacho
	p := &Plan{Version: 1, VMs: []PlanVM{winVM("high"), winVM("low"), winVM("old")}}
	inv := verifyCloud(rel,
		nova.Server{ID: "s1", Name: "high", Host: "cmp1", Flavor: crbFlavor, Image: uefiImg},
		nova.Server{ID: "s2", Name: "low", Host: "cmp1", Flavor: crbFlavor, Image: uefiImg},
		nova.Server{ID: "s3", Name: "old", Host: "cmp2", Flavor: crbFlavor, Image: uefiImg})
	view := func(r hostcheck.Risk, why string) *hostcheck.GuestBitLocker {
		return &hostcheck.GuestBitLocker{Risk: r, Certs: hostcheck.Certs2023, NVRAMKept: "yes", TPMStateKept: "no", Reasons: []string{why}}
	}
	in := VerifyInput{Inventory: inv, Release: rel, Matches: MatchServers(p, inv, nil), Reports: map[string]hostcheck.Report{
		"cmp1": {Host: "cmp1", VTPMGuests: []hostcheck.Guest{
			{UUID: "s1", Version: "2.0", Model: "tpm-crb", BitLocker: view(hostcheck.RiskHigh, "this host wipes the vTPM state (KEEP-TPM-STATE)")},
			{UUID: "s2", Version: "2.0", Model: "tpm-crb", BitLocker: view(hostcheck.RiskLow, "TPM state and NVRAM survive")}}},
		"cmp2": {Host: "cmp2", VTPMGuests: []hostcheck.Guest{{UUID: "s3", Version: "2.0", Model: "tpm-crb"}}},
	}}
	r := Verify(p, in)
	if r.Failed() || r.Verified != 3 {
		t.Fatalf("%d verified, %d missing: %+v", r.Verified, r.Missing, r.VMs)
	}
	findings := map[string]string{}
	for _, v := range r.VMs {
		findings[v.VM] = strings.Join(v.Findings, " | ")
		if v.Remedy != "" {
			t.Errorf("%s: a verified VM's remedy %q", v.VM, v.Remedy)
		}
	}
	for vm, want := range map[string][]string{
		"high": {"DOMAIN-TPM: the domain on cmp1 has its <tpm> 2.0 tpm-crb; BitLocker-recovery risk high", "KEEP-TPM-STATE", "(fix: escrow the guest's BitLocker recovery key now"},
		"old":  {"DOMAIN-TPM: NVRAM view not checked: not in the host's check report"},
	} {
		for _, w := range want {
			if !strings.Contains(findings[vm], w) {
				t.Errorf("%s: findings lack %q: %s", vm, w, findings[vm])
			}
		}
	}
	if strings.Contains(findings["low"], "DOMAIN-TPM") {
		t.Errorf("low: a passed DOMAIN-TPM in the findings: %s", findings["low"])
	}
	b, err := json.Marshal(r.VMs[0].Checks[len(r.VMs[0].Checks)-1])
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	json.Unmarshal(b, &c)
	bl, _ := c["bitlocker"].(map[string]any)
	if c["check"] != CheckDomainTPM || c["status"] != "warn" || bl["risk"] != "high" || bl["nvram_kept"] != "yes" || bl["certificates"] != "2023" || c["message"] == nil {
		t.Errorf("json %s", b)
	}
	b, _ = json.Marshal(r.VMs[2].Checks[len(r.VMs[2].Checks)-1])
	if !strings.Contains(string(b), `"bitlocker_not_checked":"not in the host's check report`) || strings.Contains(string(b), `"bitlocker":`) {
		t.Errorf("old report json %s", b)
	}
}
