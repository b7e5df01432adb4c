//go:build integration

package main

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"

	"github.com/vtpmctl/vtpmctl/internal/devcloudtest"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// TestIntegrationFaultMatrix: the fault matrix's rule on a live release
// cloud (docs/faults.md): the read commands through the fault proxy,
// every service (each catalog endpoint's origin and Keystone's) behind
// it, each fault at 5%. A run gives the fault-free result, or exits 1
// naming what could not be read. The rule is vtpmctl's transport and
// completeness, not the release's: one release runs it.
func TestIntegrationFaultMatrix(t *testing.T) {
	devcloudtest.Only(t, "2026.1")
	ups := liveOrigins(t)
	cmds := map[string][]string{
		"secrets audit":        {"secrets", "audit", "--all-projects", "--include-orphans", "-f", "json"},
		"secrets cleanup-plan": {"secrets", "audit", "--all-projects", "--cleanup-plan", "-f", "json"},
		"hosts audit":          {"hosts", "audit", "-f", "json"},
	}
	run := func(p fakecloud.FaultPlan, args []string) faultRun {
		px, clouds := liveProxy(t, ups, p)
		defer px.Close()
		t.Setenv("OS_CLIENT_CONFIG_FILE", clouds)
		out, errs, code := runCLI(t, append([]string{"--os-cloud", "devcloud-admin", "--timeout", "20s"}, args...)...)
		inj, n := px.Injected()
		out = generated.ReplaceAllString(checkedPushback(t, args, p.Kind, len(inj), px.Upstream(out)), `"generated": ""`)
		return faultRun{stdout: out, stderr: px.Upstream(errs), code: code, injected: inj, requests: n}
	}
	var rows []string
	for _, name := range []string{"hosts audit", "secrets audit", "secrets cleanup-plan"} {
		base := run(fakecloud.FaultPlan{Kind: fakecloud.NoFault}, cmds[name])
		if base.code > 1 || base.stdout == "" {
			t.Fatalf("%s without faults: exit %d\n%s", name, base.code, base.stderr)
		}
		for _, k := range []fakecloud.Fault{fakecloud.Fault503, fakecloud.FaultTooMany, fakecloud.FaultReset, fakecloud.FaultTruncated, fakecloud.Fault500} {
			r := run(fakecloud.FaultPlan{Seed: 7, Rate: 0.05, Kind: k}, cmds[name])
			o := faultOutcome(base, r)
			rows = append(rows, fmt.Sprintf("| %s | %s | %d of %d | %s |", k, name, len(r.injected), r.requests, o))
			if o != outcomeSame && o != outcomeNamed {
				t.Errorf("%s under %s (%v): exit %d, %s\nstderr: %s\ndiff: %s", name, k, r.injected, r.code, o, r.stderr, firstDiff(base.stdout, r.stdout))
			}
		}
	}
	t.Logf("\n| fault (5%%) | command | requests faulted | outcome |\n|---|---|---|---|\n%s", strings.Join(rows, "\n"))
}

// liveOrigins are the local cloud's service origins: Keystone's and each
// catalog endpoint's, so the proxy stands for every one.
func liveOrigins(t *testing.T) []string {
	t.Helper()
	sess := devcloudtest.Connect(t, "devcloud-admin")
	res, ok := sess.Provider.GetAuthResult().(tokens.CreateResult)
	if !ok {
		t.Fatal("not a Keystone v3 token")
	}
	cat, err := res.ExtractServiceCatalog()
	if err != nil {
		t.Fatal(err)
	}
	origins := map[string]bool{}
	add := func(raw string) {
		if u, err := url.Parse(raw); err == nil && u.Host != "" {
			origins[u.Scheme+"://"+u.Host] = true
		}
	}
	add(sess.Provider.IdentityBase)
	for _, e := range cat.Entries {
		for _, ep := range e.Endpoints {
			add(ep.URL)
		}
	}
	var ups []string
	for o := range origins {
		ups = append(ups, o)
	}
	return ups
}

// liveProxy starts the fault proxy in front of ups and writes a copy of
// the local cloud's clouds.yaml that reaches Keystone through it.
func liveProxy(t *testing.T, ups []string, p fakecloud.FaultPlan) (*fakecloud.Proxy, string) {
	t.Helper()
	px, err := fakecloud.StartProxy(ups, p)
	if err != nil {
		t.Fatal(err)
	}
	yaml, err := os.ReadFile(filepath.Join(devcloudtest.Dir(), "clouds.yaml"))
	if err != nil {
		px.Close()
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "clouds.yaml")
	if err := os.WriteFile(path, []byte(px.URL(string(yaml))), 0o600); err != nil {
		px.Close()
		t.Fatal(err)
	}
	return px, path
}
