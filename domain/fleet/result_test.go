package fleet

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// TestResultShape: hosts audit's JSON is one object per host: the host
// check report's keys (fleet.HostReport embeds it), the service as the
// hypervisor list shows it and the guests at risk, all in "hosts" (no
// second list to zip it with); the summary's counts say what they
// count; the resolved release is not in it.
func TestResultShape(t *testing.T) {
	hosts := []Host{{Host: "a", Hypervisor: "a.x", RPUUID: "rp-a", State: "up", Status: "enabled", Traits: []string{"COMPUTE_SECURITY_TPM_2_0"}}}
	reps, sum := AuditHosts(nova.Zed, hosts, nil, nova.NewGuestList([]nova.VTPMGuest{{ServerID: "s1", Host: "a", Mode: nova.SecretUser}}...))
	res := NewResult(nova.Zed, reps, sum)
	res.Resolved = nova.ResolvedRelease{Release: nova.Zed}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	json.Unmarshal(b, &out)
	host := out["hosts"].([]any)[0].(map[string]any)
	for k, want := range map[string]any{"host": "a", "hypervisor": "a.x", "resource_provider": "rp-a", "service_state": "up", "service_status": "enabled",
		"nova_release": nil, "summary": nil, "checks": nil, "traits": nil, "vtpm_guests": nil, "facts": nil, "at_risk_guests": nil} {
		if v, ok := host[k]; !ok || want != nil && v != want {
			t.Errorf("host object: %q is %v, want %v: %s", k, v, want, b)
		}
	}
	summary := out["summary"].(map[string]any)
	for _, k := range []string{"compute_hosts", "hosts_up_and_enabled"} {
		if summary[k] != 1.0 {
			t.Errorf("summary %q: %v", k, summary[k])
		}
	}
	if _, ok := summary["hosts"]; ok {
		t.Errorf("summary keeps the ambiguous %q: %v", "hosts", summary)
	}
	if _, ok := host["Report"]; ok || out["reports"] != nil || strings.Contains(string(b), "Resolved") || out["schema"] != Schema {
		t.Errorf("shape: %s", b)
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil || len(back.Hosts[0].AtRisk) != 1 || back.Hosts[0].Host != "a" || !back.Hosts[0].Usable() {
		t.Errorf("read back: %v %+v", err, back.Hosts)
	}
}

// TestResultViews: the table has a row per host with its findings and
// the summary line; JUnit has a suite per host; the upgrade table ends
// with its verdict.
func TestResultViews(t *testing.T) {
	hosts := []Host{{Host: "a", State: "down", Status: "enabled", Traits: []string{}}}
	reps, sum := AuditHosts(nova.Zed, hosts, nil, nova.GuestList{})
	res := NewResult(nova.Zed, reps, sum)
	tb := res.Table()
	if len(tb.Rows) != 1 || !strings.Contains(strings.Join(tb.Footer, ""), "1 host(s), 0 up and enabled") {
		t.Errorf("table %+v", tb)
	}
	if su := res.Suites(); len(su) != 1 || su[0].Name != "host a" || len(su[0].Cases) != len(reps[0].Checks) {
		t.Errorf("suites %+v", su)
	}
	u := UpgradeImpact(nova.Zed, nova.Dalmatian, []Host{{Host: "a", State: "up", Status: "enabled", Traits: []string{"COMPUTE_SECURITY_TPM_2_0"}}}, nova.GuestList{})
	if ut := u.Table(); len(ut.Rows) != 1 || !strings.Contains(ut.Footer[len(ut.Footer)-1], "upgrade zed -> 2024.2: 1 host(s) stop receiving vTPM guests") {
		t.Errorf("upgrade table %+v", ut)
	}
	if e := (&OlderTargetError{To: nova.Zed, Cloud: nova.Dalmatian}).Error(); e != "zed is older than the cloud's 2024.2" {
		t.Errorf("%q", e)
	}
}

// TestDrainFooterHint: the drain footer points to the caller's own way
// of asking for one host (the CLI's command line, its words), and to
// nothing where the caller gave none; the counts are the same.
func TestDrainFooterHint(t *testing.T) {
	hosts := []Host{{Host: "a", State: "up", Status: "enabled", Traits: []string{"COMPUTE_SECURITY_TPM_2_0"}}}
	reps, sum := AuditHosts(nova.Zed, hosts, nil, nova.NewGuestList([]nova.VTPMGuest{{ServerID: "s1", Host: "a", Version: "2.0", Model: "tpm-tis"}}...))
	res := NewResult(nova.Zed, reps, sum)
	const counts = "draining their hosts, vTPM guests would: live-migrate 0, cold-migrate 0, stay 1"
	footer := func() string { return strings.Join(res.Table().Footer, "\n") }
	if f := footer(); !strings.Contains(f, counts+"\n") && !strings.HasSuffix(f, counts) {
		t.Errorf("no hint: %s", f)
	}
	res.DrainHint = "<one host>"
	if f := footer(); !strings.Contains(f, counts+" (<one host>: each guest and why)") {
		t.Errorf("hint: %s", f)
	}
	if b, _ := json.Marshal(res); strings.Contains(string(b), "one host") {
		t.Errorf("the hint is in the JSON: %s", b)
	}
}
