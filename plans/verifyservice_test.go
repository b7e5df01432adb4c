package plans

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/vtpmctl/vtpmctl/barbican"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/result"
	"github.com/vtpmctl/vtpmctl/internal/scalecloud"
	"github.com/vtpmctl/vtpmctl/internal/scalecloud/scaletest"
	"github.com/vtpmctl/vtpmctl/nova"
)

// scaleSession: the strict synthetic cloud, connected as vtpmctl connects.
func scaleSession(t *testing.T, cfg scalecloud.Config) *cloud.Session {
	_, sess := scaletest.Session(t, cfg)
	return sess
}

// TestVerifyCutover: one call lists the servers, matches the plan's VMs
// by name, reads host traits and audits the matched guests' secrets with
// the secrets audit's defaults; a caller without flags is told what is
// off, never a flag it does not have. The request's Progress sees the
// secrets audit's phases (the servers come listed: no server phase),
// never past their totals; with the secrets off, nothing.
func TestVerifyCutover(t *testing.T) {
	sess := scaleSession(t, scalecloud.Config{Guests: 6, Projects: 2, Hypervisors: 2})
	p, _ := Import([]SourceVM{{Name: scalecloud.GuestName(0), GuestID: "windows11_64Guest", Firmware: "efi", VTPM: "yes", VCPUs: 2, MemoryMiB: 4096},
		{Name: "never-migrated", GuestID: "windows11_64Guest", Firmware: "efi", VTPM: "yes", VCPUs: 2, MemoryMiB: 4096}}, ImportOptions{})
	var progress progressLog
	r, rel, err := VerifyCutover(context.Background(), sess, VerifyRequest{Plan: p, Progress: progress.report})
	if err != nil {
		t.Fatal(err)
	}
	want := []barbican.Phase{barbican.PhaseSecrets, barbican.PhaseACLs, barbican.PhaseRoles, barbican.PhaseUsers}
	if got := progress.phases(t); !slices.Equal(got, want) {
		t.Errorf("progress phases %v, want %v", got, want)
	}
	if rel.Release != nova.Zed || len(r.VMs) != 2 || r.VMs[0].ServerID == "" || r.VMs[1].Verdict != NotFound {
		t.Fatalf("release %s, %+v", rel.Release, r.VMs)
	}
	checks := map[string]VerifyCheck{}
	for _, c := range r.VMs[0].Checks {
		checks[c.Check] = c
	}
	if c := checks[CheckSecret]; c.Status == result.Skip && strings.Contains(c.Message, "not audited") {
		t.Errorf("the secret was not audited: %+v", c)
	}
	if _, ok := r.NotChecked[CheckHostTraits]; ok {
		t.Errorf("host traits not read: %v", r.NotChecked)
	}
	if r.NotChecked[CheckDomainTPM] != "no host check reports given" {
		t.Errorf("not_checked %v", r.NotChecked)
	}
	// No flag a caller without flags lacks.
	b, _ := json.Marshal(r)
	if strings.Contains(string(b), "--") {
		t.Errorf("a flag named: %s", b)
	}

	var off progressLog
	r, _, err = VerifyCutover(context.Background(), sess, VerifyRequest{Plan: p, NoSecrets: true, Release: nova.ReleaseEvidence{Flag: nova.Zed},
		Flags: VerifyFlags{HostReports: "--host-reports", NoSecrets: "--no-secrets", Match: "--match"}, Progress: off.report})
	if err != nil {
		t.Fatal(err)
	}
	if len(off.calls) != 0 {
		t.Errorf("progress with the secrets off: %v", off.calls)
	}
	if r.NotChecked[CheckSecret] != "--no-secrets" || r.NotChecked[CheckDomainTPM] != "no --host-reports" {
		t.Errorf("not_checked %v", r.NotChecked)
	}
	if want := "--match " + p.VMs[1].Name + "=SERVER"; !strings.Contains(r.VMs[1].Remedy, want) {
		t.Errorf("remedy %q lacks %q", r.VMs[1].Remedy, want)
	}
}

// progressLog records a service's progress calls and checks the rules
// barbican.Progress promises: phases one after another, in order, Done
// growing from 0 and never past a known Total, each counted phase
// ending at its Total, one call at a time.
type progressLog struct {
	mu      sync.Mutex
	calls   []barbican.Progress
	inside  atomic.Int32
	overlap atomic.Bool
}

func (l *progressLog) report(p barbican.Progress) {
	if l.inside.Add(1) > 1 {
		l.overlap.Store(true)
	}
	defer l.inside.Add(-1)
	l.mu.Lock()
	l.calls = append(l.calls, p)
	l.mu.Unlock()
}

// phases is the phases in the order they ran, after checking each call.
func (l *progressLog) phases(t *testing.T) []barbican.Phase {
	t.Helper()
	if l.overlap.Load() {
		t.Error("two progress calls at once")
	}
	var order []barbican.Phase
	last := map[barbican.Phase]barbican.Progress{}
	for i, p := range l.calls {
		prev, seen := last[p.Phase]
		switch {
		case !seen && p.Done != 0:
			t.Errorf("call %d: %s starts at %d", i, p.Phase, p.Done)
		case !seen:
		case order[len(order)-1] != p.Phase:
			t.Errorf("call %d: %s again after %s", i, p.Phase, order[len(order)-1])
		case p.Done < prev.Done || p.Total != prev.Total:
			t.Errorf("call %d: %s went from %d/%d to %d/%d", i, p.Phase, prev.Done, prev.Total, p.Done, p.Total)
		}
		if !seen {
			order = append(order, p.Phase)
		}
		if p.Total > 0 && p.Done > p.Total {
			t.Errorf("call %d: %s at %d of %d", i, p.Phase, p.Done, p.Total)
		}
		last[p.Phase] = p
	}
	for _, ph := range order {
		if p := last[ph]; p.Total > 0 && p.Done != p.Total {
			t.Errorf("%s ended at %d of %d", ph, p.Done, p.Total)
		}
	}
	return order
}
