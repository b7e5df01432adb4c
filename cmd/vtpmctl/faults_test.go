package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud/scale"
)

// faultCommands are the read commands the fault matrix runs, each in a
// format whose output is the whole result (no clock in it).
func faultCommands(plan string) map[string][]string {
	return map[string][]string{
		"secrets audit":        {"secrets", "audit", "--all-projects", "--include-orphans", "-f", "json"},
		"secrets cleanup-plan": {"secrets", "audit", "--all-projects", "--cleanup-plan", "-f", "json"},
		"hosts audit":          {"hosts", "audit", "-f", "json"},
		"plan verify":          {"plan", "verify", plan, "-f", "json"},
		"image list":           {"image", "list", "-f", "json"},
		"flavor list":          {"flavor", "list", "-f", "json"},
	}
}

// A run's outcome under faults.
const (
	outcomeSame   = "identical"
	outcomeNamed  = "exit 1, named"
	outcomeBroken = "VIOLATION"
)

// faultRun is one command under one plan.
type faultRun struct {
	stdout, stderr string
	code           int
	injected       []fakecloud.Injection
	requests       int
}

// TestFaultMatrix runs every read command through the fault proxy in
// front of the strict synthetic cloud, one fault kind at a time at a set
// rate, several seeds each. A run must give exactly the fault-free
// result, or exit 1 with a line naming what could not be read: never a
// silent subset, never an orphan, a delete line or a "gone" the
// fault-free run does not have, never a panic or a usage exit. The
// table it logs is docs/faults.md's.
func TestFaultMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("the fault matrix runs in make test (unit), not -short")
	}
	// strict: a request the cloud does not serve fails the matrix, faults or not
	c, err := scale.New(fakecloud.New(t), scale.Config{Guests: 24, Projects: 3, Hypervisors: 3, Others: 4, OtherSecrets: 2, VolumeBacked: 5, Images: 3, Users: 6, Orphans: 2})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.yaml")
	writeFaultPlan(t, plan)
	cmds := faultCommands(plan)
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)

	run := func(p fakecloud.FaultPlan, args []string) faultRun {
		px, err := fakecloud.StartProxy([]string{c.URL}, p)
		if err != nil {
			t.Fatal(err)
		}
		defer px.Close()
		clouds := filepath.Join(dir, "clouds.yaml")
		yaml := fakecloud.CloudsYAML("scale", px.URL(c.URL), fakecloud.Scope{ProjectName: "admin"})
		if err := os.WriteFile(clouds, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		t.Setenv("OS_CLIENT_CONFIG_FILE", clouds)
		// a hang ends at the timeout; elsewhere a loaded machine must not
		// turn a slow answer into one
		timeout := "30s"
		if p.Kind == fakecloud.FaultHang {
			timeout = "2s"
		}
		out, errs, code := runCLI(t, append([]string{"--os-cloud", "scale", "--timeout", timeout}, args...)...)
		inj, n := px.Injected()
		// the plan's clock and the proxy's port are no part of a result
		out = checkedPushback(t, args, p.Kind, len(inj), out)
		out = generated.ReplaceAllString(out, `"generated": ""`)
		out = strings.ReplaceAll(out, px.URL(c.URL), "http://cloud")
		errs = strings.ReplaceAll(errs, px.URL(c.URL), "http://cloud")
		return faultRun{stdout: out, stderr: errs, code: code, injected: inj, requests: n}
	}
	base := map[string]faultRun{}
	for _, n := range names {
		base[n] = run(fakecloud.FaultPlan{Kind: fakecloud.NoFault}, cmds[n])
		if base[n].code > 1 || base[n].stdout == "" {
			t.Fatalf("%s without faults: exit %d\n%s", n, base[n].code, base[n].stderr)
		}
	}
	// the gate has something to hold: the orphans' secrets are deleted
	// when nothing fails
	if n := strings.Count(base["secrets cleanup-plan"].stdout, `"action": "delete"`); n != 2 {
		t.Fatalf("fault-free cleanup plan: %d deletes, want the 2 orphans'\n%s", n, base["secrets cleanup-plan"].stdout)
	}
	const rate, seeds = 0.08, 3
	type cell struct{ runs, same, named, broken, faults, requests int }
	table := map[fakecloud.Fault]map[string]*cell{}
	for _, k := range fakecloud.Faults {
		table[k] = map[string]*cell{}
		for _, n := range names {
			cl := &cell{}
			table[k][n] = cl
			for seed := int64(1); seed <= seeds; seed++ {
				r := run(fakecloud.FaultPlan{Seed: seed, Rate: rate, Kind: k, Latency: 20 * time.Millisecond}, cmds[n])
				cl.runs++
				cl.faults += len(r.injected)
				cl.requests += r.requests
				switch o := faultOutcome(base[n], r); o {
				case outcomeSame:
					cl.same++
				case outcomeNamed:
					cl.named++
				default:
					cl.broken++
					t.Errorf("%s under %s (seed %d, %d of %d requests faulted: %v): exit %d, %s\nstderr: %s\ndiff: %s", n, k, seed, len(r.injected), r.requests, r.injected, r.code, o, r.stderr, firstDiff(base[n].stdout, r.stdout))
				}
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n| fault (rate %.0f%%, %d seeds) | command | runs | requests faulted | identical | exit 1, named | violations |\n|---|---|---|---|---|---|---|\n", rate*100, seeds)
	for _, k := range fakecloud.Faults {
		for _, n := range names {
			cl := table[k][n]
			fmt.Fprintf(&b, "| %s | %s | %d | %d of %d | %d | %d | %d |\n", k, n, cl.runs, cl.faults, cl.requests, cl.same, cl.named, cl.broken)
		}
	}
	t.Log(b.String())
}

var generated = regexp.MustCompile(`"generated": "[^"]*"`)

// deleteOrGone counts what a fault may never add: delete lines, orphans
// whose instance is gone.
var deleteOrGone = regexp.MustCompile(`secret delete|"instance-gone"|"action": "delete"`)

// faultOutcome classifies a run against the fault-free one.
// ageSeconds is the one field of these commands' output that moves with
// the clock (an orphan's age, counted to the second from the run's start):
// two runs a second apart differ there and nowhere else.
var ageSeconds = regexp.MustCompile(`("age_seconds": )[0-9]+`)

// clockFree is an output with its clock-bound fields blanked.
func clockFree(s string) string { return ageSeconds.ReplaceAllString(s, "${1}N") }

func faultOutcome(base, r faultRun) string {
	if len(deleteOrGone.FindAllString(r.stdout, -1)) > len(deleteOrGone.FindAllString(base.stdout, -1)) {
		return outcomeBroken + ": a delete or a gone instance the fault-free run does not have"
	}
	switch {
	case strings.Contains(r.stderr, "panic"):
		return outcomeBroken + ": panic"
	case r.code == base.code && clockFree(r.stdout) == clockFree(base.stdout):
		return outcomeSame
	case r.code == 0:
		return outcomeBroken + ": exit 0 with another result (a silent subset)"
	case r.code != 1:
		return outcomeBroken + fmt.Sprintf(": exit %d", r.code)
	case !namesReadFailure(base.stderr, r.stderr):
		return outcomeBroken + ": exit 1 with another result, and no line naming what could not be read"
	}
	return outcomeNamed
}

// readFailure is how vtpmctl names a read that failed: the request
// (cloud.APIErrorLine: "GET compute /servers/detail: 500 …"), the list,
// the project or the answer it could not read.
var readFailure = regexp.MustCompile(`https?://|\b(GET|HEAD|POST|PUT|PATCH|DELETE) ([a-z-]+ )?/\S*: [0-9]{3}\b|listing |not auditable|reading the answer|timeout|deadline|Expected HTTP response|cannot |could not|partial read`)

// namesReadFailure: a line the fault-free run did not print names a
// failed read.
func namesReadFailure(base, got string) bool {
	seen := map[string]bool{}
	for _, l := range strings.Split(base, "\n") {
		seen[l] = true
	}
	for _, l := range strings.Split(got, "\n") {
		if !seen[l] && readFailure.MatchString(l) {
			return true
		}
	}
	return false
}

// writeFaultPlan is a plan of a few of the synthetic cloud's guests.
func writeFaultPlan(t *testing.T, path string) {
	var b strings.Builder
	b.WriteString("version: 1\nimages: []\nflavors: []\nvms:\n")
	for _, g := range []int{0, 1, 5, 9} {
		flavor, image := "vtpm.crb", "plain"
		if g%3 == 0 {
			flavor, image = "m1.small", "win11-vtpm"
		}
		fmt.Fprintf(&b, "- name: %s\n  guest_os: windows2022srvNext_64Guest\n  firmware: efi\n  secure_boot: \"no\"\n  source_vtpm: \"yes\"\n  vcpus: 2\n  ram: 4096\n  disk: 40\n  target_flavor: %s\n  target_image: %s\n  target_vtpm: 2.0 tpm-crb\n",
			scale.GuestName(g), flavor, image)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// firstDiff is the first line where got differs from want, with both.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) && i < len(g); i++ {
		if w[i] != g[i] {
			return fmt.Sprintf("line %d: want %q, got %q", i+1, w[i], g[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(w), len(g))
}

// checkedPushback checks the result's server_pushback against the
// faults injected (every 429 and 503 the proxy sent counted, no other
// answer) and takes it out of the comparison that follows.
func checkedPushback(t *testing.T, args []string, kind fakecloud.Fault, injected int, out string) string {
	t.Helper()
	m := pushbackAnswers.FindStringSubmatch(out)
	if m == nil {
		return out
	}
	want := 0
	if kind == fakecloud.FaultTooMany || kind == fakecloud.Fault503 {
		want = injected
	}
	if m[1] != strconv.Itoa(want) {
		t.Errorf("%v under %s: the result says the cloud pushed back %s time(s), the proxy answered %d with %s", args, kind, m[1], want, kind)
	}
	return pushbackSection.ReplaceAllString(out, `"server_pushback": {}`)
}

var (
	pushbackAnswers = regexp.MustCompile(`"server_pushback": \{\s*"answers": (\d+)`)
	pushbackSection = regexp.MustCompile(`(?s)"server_pushback": \{.*?\}`)
)
