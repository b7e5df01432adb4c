package reportpage

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/advice"
	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
)

func write(t *testing.T, dir, name string, v any) string {
	p := filepath.Join(dir, name)
	b, _ := json.Marshal(v)
	os.WriteFile(p, b, 0o644)
	return p
}

func TestLoadAndRender(t *testing.T) {
	dir := t.TempDir()
	host := hostcheck.Report{Schema: hostcheck.ReportSchema, Host: "cmp1", Checks: []hostcheck.Check{{ID: "KVM-NESTED", Status: hostcheck.Warn, Message: "nested", Remedy: "none"}, {ID: "VIRT-TYPE", Status: hostcheck.Fail, Message: "found 'lxc' <script>x</script>", Remedy: "use kvm"}}}
	fl := fleet.NewResult(nova.Zed, []fleet.HostReport{}, fleet.Summary{Hosts: 3, Usable: 3, TPM20: 2, AtRisk: 4})
	sec := vtpmsecret.Result{Schema: vtpmsecret.ResultSchema, Summary: vtpmsecret.Summary{Guests: 5, Secrets: 5, OK: 4, Failed: 1}, Guests: []vtpmsecret.GuestResult{{Guest: vtpmsecret.Guest{ServerID: "s1", Name: "win1"},
		Findings: []vtpmsecret.Finding{{Check: "SECRET-EXISTS", Status: "fail", Message: "gone"}}}}, NotAuditable: map[string]vtpmsecret.NotAuditable{"p9": {Detail: "403"}}}
	up := fleet.UpgradeResult{Schema: fleet.UpgradeSchema, From: "zed", To: "2024.2", Hosts: []fleet.UpgradeHost{}, Stranded: []fleet.StrandedGuest{{VTPMGuest: nova.VTPMGuest{ServerID: "s2", Name: "win2", Host: "cmp1"}, Requires: []string{"COMPUTE_SECURITY_TPM_TIS"}}}}
	var in Inputs
	for _, p := range []string{write(t, dir, "h.json", host), write(t, dir, "f.json", fl),
		write(t, dir, "s.json", sec), write(t, dir, "u.json", up)} {
		if err := in.Load(p); err != nil {
			t.Fatal(err)
		}
	}
	if len(in.Hosts) != 1 || in.Fleet == nil || in.Secrets == nil || in.Upgrade == nil {
		t.Fatalf("not every kind recognised: %+v", in)
	}
	for name, v := range map[string]any{
		"written by an older vtpmctl":                               map[string]any{"host": "cmp1", "checks": []any{}}, // a host check report before schemas
		"another vtpmctl version":                                   map[string]any{"schema": "vtpmctl.host-check/9"},
		`"vtpmctl.hosts-audit/1", expected "vtpmctl.hosts-audit/2"`: map[string]any{"schema": "vtpmctl.hosts-audit/1", "reports": []any{}},
		"not the JSON of":                                           map[string]any{"schema": "vtpmctl.check/1"},
	} {
		if err := in.Load(write(t, dir, "x.json", v)); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v", name, err)
		}
	}
	in.Generated = time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	if err := Render(&b, in, nil); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{"Compute hosts", "Fleet and scheduling", "4 guest(s) cannot be evacuated", "vTPM secrets (Barbican)", "Upgrade to 2024.2",
		"STRANDED", "SECRET-EXISTS", "not auditable: 403", "Remedy: use kvm", "<svg", "2026-11-29 00:00 UTC"} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(html, "<script>x</script>") {
		t.Error("a finding's text reached the page unescaped")
	}
	// The host's warning is gathered before any failure; the page must
	// still list every failing row above every warning.
	lastFail, firstWarn := strings.LastIndex(html, `class="status fail"`), strings.Index(html, `class="status warn"`)
	if lastFail < 0 || firstWarn < 0 || lastFail > firstWarn {
		t.Errorf("failures come first: last fail row at %d, first warn row at %d", lastFail, firstWarn)
	}
}

func TestRenderEmpty(t *testing.T) {
	var b bytes.Buffer
	if err := Render(&b, Inputs{}, nil); err != nil || !strings.Contains(b.String(), "No results were given") {
		t.Errorf("%v %s", err, b.String())
	}
}

// cliLike spells advice as a command line would (a test's words).
type cliLike struct{}

func (cliLike) Option(o advice.Option) string   { return "--" + strings.ReplaceAll(string(o), "_", "-") }
func (cliLike) Command(c advice.Command) string { return "prog " + string(c) }

// TestOrphanRemedyInCallersWords: an orphan secret's remedy is the
// secrets audit's cleanup plan, spelled by the caller's words; without
// words, plainly.
func TestOrphanRemedyInCallersWords(t *testing.T) {
	sec := vtpmsecret.Result{Schema: vtpmsecret.ResultSchema, Orphans: []vtpmsecret.Orphan{{Secret: vtpmsecret.Secret{ID: "o1", CreatorID: "u"}, Reason: "no server", AgeSeconds: 9 * 86400}}}
	for words, want := range map[advice.Words]string{cliLike{}: "prog secrets audit --cleanup-plan", nil: "secrets audit cleanup_plan"} {
		var b bytes.Buffer
		if err := Render(&b, Inputs{Secrets: &sec}, words); err != nil || !strings.Contains(b.String(), "Remedy: "+want) {
			t.Errorf("words %T: %v, the page lacks %q", words, err, "Remedy: "+want)
		}
	}
}
