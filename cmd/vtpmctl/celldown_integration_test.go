//go:build integration

package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/keymanager/v1/secrets"

	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/devcloudtest"
)

// TestIntegrationCleanupPlanCellDown: a vTPM-named secret whose instance
// never existed, in the demo project. With cell1's database refusing
// connections (a down cell, as Nova sees one), the admin's cleanup plan
// over every project writes no delete line: Nova's service list shows
// the cell's compute services UNKNOWN, so a 404 proves nothing, and the
// plan says so and exits 1. With the cell back, the same secret gets its
// one delete line: the gate, not a missing secret, kept it. Zed only:
// the rule is vtpmctl's, the same on every release (cells and 2.69 are
// Nova's since Stein).
func TestIntegrationCleanupPlanCellDown(t *testing.T) {
	devcloudtest.Only(t, "zed")
	h := newHarness(t)
	ctx := context.Background()
	km, err := devcloudtest.Connect(t, "devcloud-demo").KeyManager()
	if err != nil {
		t.Fatal(err)
	}
	s, err := secrets.Create(ctx, km, secrets.CreateOpts{Name: vtpmsecret.NamePrefix + randomUUID(t), Payload: "not-a-real-vtpm-passphrase",
		PayloadContentType: "text/plain", SecretType: secrets.PassphraseSecret}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	id := s.SecretRef[strings.LastIndex(s.SecretRef, "/")+1:]
	t.Cleanup(func() { secrets.Delete(context.Background(), km, id) })
	plan := func() runResult {
		return h.run(func(streams *IOStreams) error {
			return runSecretsAudit(ctx, &secretsAuditOptions{IO: streams, Global: h.global("devcloud-admin"), AllProjects: true, CleanupPlan: true,
				NoACLs: true, Concurrency: 4, ServiceProject: "service"})
		})
	}
	deleteLines := func(out string) int {
		n := 0
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "openstack") && strings.Contains(l, id) {
				n++
			}
		}
		return n
	}

	cellDB(t, false)
	down := plan()
	cellDB(t, true)
	// Nova answers one of two ways, and neither may end in a delete line:
	// a cell that does not answer in time is partial records and UNKNOWN
	// services (the plan says NOT PROVEN); a cell whose database refuses
	// connections makes Zed's server list fail with 500 (multi_cell_list's
	// query_wrapper re-raises the DBAPIError as e.__class__(e.args): a
	// TypeError), and the audit exits 1 on the failed list, with no plan.
	notProven := strings.Contains(down.stdout, "# NOT PROVEN: cell_down")
	listFailed := down.stdout == "" && strings.Contains(down.stderr, "listing servers") && strings.Contains(down.stderr, "500")
	if n := deleteLines(down.stdout); n != 0 || down.code != 1 || !notProven && !listFailed {
		t.Fatalf("cell1 down: %d delete line(s) for %s, exit %d\n%s\n%s", n, id, down.code, down.stdout, down.stderr)
	}
	t.Logf("cell1 down (exit %d):\n%s%s", down.code, down.stdout, down.stderr)
	// Nova's connection pool finds the database again on its next use.
	var up runResult
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(2 * time.Second) {
		if up = plan(); deleteLines(up.stdout) == 1 || time.Now().After(deadline) {
			break
		}
	}
	if deleteLines(up.stdout) != 1 {
		t.Fatalf("cell1 up again: no delete line for %s, exit %d\n%s\n%s", id, up.code, up.stdout, up.stderr)
	}
}

// cellDB takes cell1's database out of reach (no new connection, the
// open ones ended) or back, as the local cloud's PostgreSQL superuser; a
// cell taken down is brought back when the test ends, whatever happens.
func cellDB(t *testing.T, allow bool) {
	t.Helper()
	sql := "ALTER DATABASE nova_cell1 ALLOW_CONNECTIONS true"
	if !allow {
		sql = "ALTER DATABASE nova_cell1 ALLOW_CONNECTIONS false; SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = 'nova_cell1'"
		t.Cleanup(func() { cellDB(t, true) })
	}
	out, err := exec.Command("psql", "-h", filepath.Join(devcloudtest.Dir(), "run", "pg"), "-U", "postgres", "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-Atc", sql).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", sql, err, out)
	}
}
