package plan

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/app/secrets"
	"github.com/vtpmctl/vtpmctl/app/secrets/progresstest"
	"github.com/vtpmctl/vtpmctl/domain/advice"
	"github.com/vtpmctl/vtpmctl/domain/migration"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud/scale"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// scaleSession: the strict synthetic cloud, connected as vtpmctl connects.
func scaleSession(t *testing.T, cfg scale.Config) *cloud.Session {
	_, sess := scale.Session(t, cfg)
	return sess
}

// TestVerifyCutover: one call lists the servers, matches the plan's VMs
// by name, reads host traits and audits the matched guests' secrets with
// the secrets audit's defaults; a caller without flags is told what is
// off, never a flag it does not have. The request's Progress sees the
// secrets audit's phases (the servers come listed: no server phase),
// never past their totals; with the secrets off, nothing.
func TestVerifyCutover(t *testing.T) {
	sess := scaleSession(t, scale.Config{Guests: 6, Projects: 2, Hypervisors: 2})
	p, _ := migration.Import([]migration.SourceVM{{Name: scale.GuestName(0), GuestID: "windows11_64Guest", Firmware: "efi", VTPM: "yes", VCPUs: 2, MemoryMiB: 4096},
		{Name: "never-migrated", GuestID: "windows11_64Guest", Firmware: "efi", VTPM: "yes", VCPUs: 2, MemoryMiB: 4096}}, migration.ImportOptions{})
	var progress progresstest.Log
	r, rel, err := VerifyCutover(context.Background(), sess, VerifyRequest{Plan: p, Progress: progress.Report})
	if err != nil {
		t.Fatal(err)
	}
	want := []secrets.Phase{secrets.PhaseSecrets, secrets.PhaseUsers}
	if got := progress.Phases(t); !slices.Equal(got, want) {
		t.Errorf("progress phases %v, want %v", got, want)
	}
	if rel.Release != nova.Zed || len(r.VMs) != 2 || r.VMs[0].ServerID == "" || r.VMs[1].Verdict != migration.NotFound {
		t.Fatalf("release %s, %+v", rel.Release, r.VMs)
	}
	checks := map[string]migration.VerifyCheck{}
	for _, c := range r.VMs[0].Checks {
		checks[c.Check] = c
	}
	if c := checks[migration.CheckSecret]; c.Status == result.Skip && strings.Contains(c.Message, "not audited") {
		t.Errorf("the secret was not audited: %+v", c)
	}
	if _, ok := r.NotChecked[migration.CheckHostTraits]; ok {
		t.Errorf("host traits not read: %v", r.NotChecked)
	}
	if r.NotChecked[migration.CheckDomainTPM] != "no host check reports given" {
		t.Errorf("not_checked %v", r.NotChecked)
	}
	// No flag a caller without flags lacks.
	b, _ := json.Marshal(r)
	if strings.Contains(string(b), "--") {
		t.Errorf("a flag named: %s", b)
	}

	var off progresstest.Log
	r, _, err = VerifyCutover(context.Background(), sess, VerifyRequest{Plan: p, NoSecrets: true, Release: nova.ReleaseEvidence{Flag: nova.Zed},
		Words: flagWords{migration.OptionHostReports: "--host-reports", migration.OptionNoSecrets: "--no-secrets", migration.OptionMatch: "--match"}, Progress: off.Report})
	if err != nil {
		t.Fatal(err)
	}
	if len(off.Calls()) != 0 {
		t.Errorf("progress with the secrets off: %v", off.Calls())
	}
	if r.NotChecked[migration.CheckSecret] != "--no-secrets" || r.NotChecked[migration.CheckDomainTPM] != "no --host-reports" {
		t.Errorf("not_checked %v", r.NotChecked)
	}
	if want := "--match " + p.VMs[1].Name + "=SERVER"; !strings.Contains(r.VMs[1].Remedy, want) {
		t.Errorf("remedy %q lacks %q", r.VMs[1].Remedy, want)
	}
}

// flagWords spell options as a caller with flags does (a test's map).
type flagWords map[advice.Option]string

func (w flagWords) Option(o advice.Option) string   { return w[o] }
func (w flagWords) Command(c advice.Command) string { return "vtpmctl " + string(c) }
