package reportpage

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
)

// issue41 is the report of issue 41: 100 Zed hosts (2 down, 2 disabled,
// 10 without TPM traits), 2,000 guests, 40 orphaned secrets, an
// upgrade to 2026.1 that strands every guest; no host check report. The
// guests are 22 or 23 a host: the hosts' evacuation notes differ in
// their counts alone.
func issue41(t *testing.T) Inputs {
	t.Helper()
	var hosts []fleet.Host
	var guests []nova.VTPMGuest
	for h := 0; h < 100; h++ {
		host := fleet.Host{Host: fmt.Sprintf("cmp-%05d", h), State: "up", Status: "enabled", Traits: []string{"HW_CPU_X86_AVX2"}}
		if h%50 == 49 {
			host.State = "down"
		}
		if h%40 == 39 {
			host.Status = "disabled"
		}
		if h%10 != 9 {
			host.Traits = append(host.Traits, "COMPUTE_SECURITY_TPM_1_2", "COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_TIS", "COMPUTE_SECURITY_TPM_CRB")
		}
		hosts = append(hosts, host)
	}
	if hosts[0].Host = "cmp-<b>0</b>"; true { // a hostile name, in a grouped row's list
		hosts[0].Hypervisor = hosts[0].Host
	}
	for i := 0; len(guests) < 2000; i++ {
		if h := i % 100; h%10 != 9 {
			guests = append(guests, nova.VTPMGuest{ServerID: fmt.Sprintf("s-%06d", i), Name: fmt.Sprintf("vm-%06d", i), Host: hosts[h].Host, Version: "2.0", Model: "tpm-crb", Mode: nova.SecretUser})
		}
	}
	list := nova.NewGuestList(guests...)
	reps, sum := fleet.AuditHosts(nova.Zed, hosts, nil, list)
	up := fleet.UpgradeImpact(nova.Zed, nova.Gazpacho, hosts, list)
	sec := &vtpmsecret.Result{Schema: vtpmsecret.ResultSchema, Summary: vtpmsecret.Summary{Guests: 2000, Secrets: 2040, OK: 2000, Orphans: 40}}
	for i := 0; i < 40; i++ {
		sec.Orphans = append(sec.Orphans, vtpmsecret.Orphan{Secret: vtpmsecret.Secret{ID: fmt.Sprintf("0rph%04d-0000-4000-8000-000000000000", i), InstanceID: fmt.Sprintf("gone-%d", i),
			ProjectID: "9f2c6c1e", CreatorID: "5d4c3b2a"}, ProjectName: "finance", CreatorName: "alice", Kind: vtpmsecret.OrphanGone,
			Reason: fmt.Sprintf("instance gone-%d no longer exists", i), AgeSeconds: 67 * 86400})
	}
	return Inputs{Fleet: fleet.NewResult(nova.Zed, reps, sum), Secrets: sec, Upgrade: &up, Generated: time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)}
}

func page41(t *testing.T, in Inputs) string {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, in, cliLike{}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestFirstScreenNamesTheWorst: before any tile, chart or table the page
// names what is not a pass, by count and status, worst first, each
// linked to its row: the 2,000 stranded guests, the hosts without TPM
// traits, down or disabled, the 40 orphans; the standing evacuation note
// of every vTPM host after those.
func TestFirstScreenNamesTheWorst(t *testing.T) {
	html := page41(t, issue41(t))
	first := html[:strings.Index(html, `<section class="tiles"`)]
	items := regexp.MustCompile(`<li><span class="sev (\w+)">\w+</span> <strong>([^<]+)</strong>: <a href="#(f\d+)">([^<]+)</a>`).FindAllStringSubmatch(first, -1)
	var got []string
	for _, m := range items {
		got = append(got, m[1]+" "+m[2]+": "+m[4])
		if !strings.Contains(html, `<tr id="`+m[3]+`">`) {
			t.Errorf("%s links to #%s, which no row has", m[2], m[3])
		}
	}
	want := []string{
		"fail 2000 guests: stranded by the upgrade to 2026.1",
		"warn 40 secrets: orphaned, its instance gone",
		"warn 10 hosts: not a vTPM host",
		"warn 2 hosts: nova-compute is up and disabled",
		"warn 2 hosts: nova-compute is down and enabled",
		"warn 90 hosts: N vTPM guest(s) here (N user mode) cannot be evacuated",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("first screen:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(first, "Needs attention") || strings.Contains(first, "<table") {
		t.Error("the first screen is not the list of what needs attention")
	}
}

// TestTilePassOnlyWithoutFailures: hosts down and without traits warn
// the fleet tile, orphans the secrets tile (both said pass before); a
// tile whose area has no finding passes.
func TestTilePassOnlyWithoutFailures(t *testing.T) {
	in := issue41(t)
	html := page41(t, in)
	for _, want := range []string{
		`<h2>Fleet and scheduling</h2><span class="verdict warn">warn</span>`,
		`<h2>vTPM secrets (Barbican)</h2><span class="verdict warn">warn</span>`,
		`<h2>Upgrade to 2026.1</h2><span class="verdict fail">fail</span>`,
		"40 warn <a href=\"#findings\">",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	in.Secrets.Orphans, in.Secrets.Summary.Orphans = nil, 0
	if html := page41(t, in); !strings.Contains(html, `<h2>vTPM secrets (Barbican)</h2><span class="verdict pass">pass</span>`) {
		t.Error("a secrets audit without findings does not pass its tile")
	}
}

// TestIdenticalFindingsGrouped: one row per distinct finding, worst
// first, with its count and its subjects (escaped) in a list; orphans
// named by project and creator, not by IDs alone; the standing
// evacuation note after the faults of its status.
func TestIdenticalFindingsGrouped(t *testing.T) {
	html := page41(t, issue41(t))
	rows := regexp.MustCompile(`<tr id="f\d+"><td class="status (\w+)">\w+</td><td>\w+</td><td>([A-Z-]+)</td><td class="count">(\d+)</td>`).FindAllStringSubmatch(html, -1)
	var got []string
	for _, r := range rows {
		got = append(got, r[1]+" "+r[2]+" "+r[3])
	}
	want := "fail STRANDED 2000, warn ORPHAN 40, warn TRAITS 10, warn SERVICE 2, warn SERVICE 2, warn EVACUATION-RISK 90"
	if strings.Join(got, ", ") != want {
		t.Errorf("rows %s\nwant %s", strings.Join(got, ", "), want)
	}
	for _, w := range []string{
		"<li>secret 0rph0000-0000-4000-8000-000000000000 of project finance (9f2c6c1e), created by alice (5d4c3b2a), 67d old, instance gone-0</li>",
		"<li>cmp-&lt;b&gt;0&lt;/b&gt;: 23 vTPM guest(s) here (23 user mode) cannot be evacuated",
		"<td>N vTPM guest(s) here (N user mode) cannot be evacuated (each one's own words in the list)",
		"<summary>2000 guests: vm-000000, vm-000001, vm-000002 and 1997 more</summary><ul><li>vm-000000 (s-000000) on cmp-&lt;b&gt;0&lt;/b&gt;</li>",
		"<summary>40 secrets: 0rph0000-0000-4000-8000-000000000000, 0rph0001-0000-4000-8000-000000000000,",
	} {
		if !strings.Contains(html, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	if strings.Contains(html, "<b>0</b>") {
		t.Error("a host's name reached the page unescaped")
	}
}

// TestHostReportsNote: without host check reports the BitLocker and
// Secure Boot sections say what they need (in the caller's words) and
// their tiles are not assessed, not left out; with a report, no note.
func TestHostReportsNote(t *testing.T) {
	in := issue41(t)
	html := page41(t, in)
	for _, w := range []string{"<h2>BitLocker recovery risk</h2>\n<p class=\"needs\">Not assessed. This needs the compute hosts&#39; own check reports",
		"run prog host check on each host and give its JSON reports (--host-reports DIR, or as inputs)",
		"<h2>Secure Boot 2023 certificates</h2>\n<p class=\"needs\">Not assessed.",
		`<h2>BitLocker recovery risk</h2><span class="verdict unknown">unknown</span><p>not assessed: needs the hosts&#39; check reports (--host-reports)</p>`} {
		if !strings.Contains(html, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	in.Hosts = []hostcheck.Report{{Host: "cmp-00001", Checks: []hostcheck.Check{}}}
	if html := page41(t, in); strings.Contains(html, "Not assessed") || strings.Contains(html, "verdict unknown") {
		t.Error("with a host check report, the page still says it has none")
	}
	if html := page41(t, Inputs{Secrets: in.Secrets}); strings.Contains(html, "Not assessed") {
		t.Error("a secrets-only page speaks of host reports")
	}
}

// TestSubjectIDsWhole: a server's UUID in a finding's subject is kept on
// one line (a browser would break it at a hyphen), and the name around it
// is still escaped.
func TestSubjectIDsWhole(t *testing.T) {
	got := string(wholeIDs(`vm<b>1 (467c3a6d-d202-49a1-a69d-9c0fea893738) on cmp&1`))
	want := `vm&lt;b&gt;1 (<span class="id">467c3a6d-d202-49a1-a69d-9c0fea893738</span>) on cmp&amp;1`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
