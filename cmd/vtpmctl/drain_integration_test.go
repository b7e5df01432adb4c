//go:build integration

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/internal/devcloudtest"
)

// hostCheckArgs: `vtpmctl host check` as run on each compute of the
// release cloud (its nova-compute's config files, its libvirtd's socket).
func hostCheckArgs(extraConf string) []string {
	d := "/var/tmp/vtpmctl-devcloud"
	args := []string{"host", "check", "-f", "json", "--nova-conf", d + "/etc/nova/nova-cpu.conf"}
	if extraConf != "" {
		args = append(args, "--nova-conf", d+"/etc/nova/"+extraConf)
	}
	return append(args, "--libvirt-uri", "qemu+unix:///system?socket="+d+"/run/libvirt/libvirt-sock")
}

// drainSeen writes host check reports of both computes, as an operator
// would before draining A, checks the migration readiness they show, and
// returns `hosts audit --drain A`'s answer per server, with the readiness
// findings as table rows.
func drainSeen(t *testing.T, hostA string, hostModeGuests int) (guests map[string]fleet.RiskGuest, findings []string) {
	t.Helper()
	ctx := context.Background()
	h := newHarness(t)
	dir := t.TempDir()
	cell := ""
	for _, c := range []struct {
		name  string
		host  devcloudtest.ComputeHost
		extra string
	}{
		{"a", devcloudtest.HostA(t), ""},
		{"b", devcloudtest.HostB(t), "nova-b.conf"},
	} {
		stdout, code := c.host.RunCLI(t, hostCheckArgs(c.extra)...)
		var rep hostcheck.Report
		if err := json.Unmarshal(stdout, &rep); err != nil {
			t.Fatalf("host check on %s: exit %d, JSON: %v", c.host.Name, code, err)
		}
		// Readiness as each host sees it: decided (never skipped) and
		// reported; what it says depends on the release's swtpm.
		for _, name := range []string{"SWTPM-MIGRATION", "MIGRATION-READY"} {
			ch := findCheck(rep, name)
			// B has no guest yet: no host-mode guest, no check
			if name == "MIGRATION-READY" && (hostModeGuests == 0 || c.name == "b") {
				continue
			}
			if ch.Status == hostcheck.Skip || ch.Status == "" {
				t.Errorf("host check on %s: %s not decided: %s %s", c.host.Name, name, ch.Status, ch.Message)
			}
			if name == "MIGRATION-READY" && c.name == "a" && ch.Status != hostcheck.Pass {
				t.Errorf("host check on %s: MIGRATION-READY %s %s (%d host-mode guests)", c.host.Name, ch.Status, ch.Message, hostModeGuests)
			}
			findings = append(findings, fmt.Sprintf("| host check on %s | %s %s: %s |", c.host.Name, name, ch.Status, ch.Message))
		}
		// one cell: both computes reach the same message queue
		if rep.Facts.Cell == "" || (cell != "" && rep.Facts.Cell != cell) {
			t.Errorf("host check on %s: cell %q (the other host's: %q)", c.host.Name, rep.Facts.Cell, cell)
		}
		cell = rep.Facts.Cell
		findings = append(findings, fmt.Sprintf("| host check on %s | cell %s |", c.host.Name, rep.Facts.Cell))
		if err := os.WriteFile(filepath.Join(dir, c.name+".json"), stdout, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r := h.run(func(s *IOStreams) error {
		return runHostsAudit(ctx, &hostsOptions{IO: s, Global: h.global("devcloud-admin"), Dir: dir, Drain: hostA, DrainSet: true})
	})
	var res fleet.DrainResult
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("hosts audit --drain %s: exit %d, JSON: %v\n%s", hostA, r.code, err, r.stderr)
	}
	guests = map[string]fleet.RiskGuest{}
	for _, g := range res.Guests {
		if strings.Contains(g.DrainReason, "cell") {
			t.Errorf("hosts audit --drain %s: %s: the reason speaks of cells, the hosts share one: %s", hostA, g.ServerID, g.DrainReason)
		}
		guests[g.ServerID] = g
	}
	return guests, findings
}
