//go:build integration

package main

import (
	"context"
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/devcloudtest"
)

// TestIntegrationPrometheus: -f prometheus of the three audits against the
// live cloud, parsed back with the client library's parser: the compute's
// check and traits, both hypervisors, the secrets audit's counts.
func TestIntegrationPrometheus(t *testing.T) {
	devcloudtest.Only(t, "zed", "2026.2") // the oldest and the newest
	h := newHarness(t)
	ctx := context.Background()
	prom := func(cloud string) *globalOptions {
		g := h.global(cloud)
		g.Output.Format = "prometheus"
		return g
	}

	r := h.run(func(streams *IOStreams) error { return runHostCheck(ctx, hostCheckOpts(streams, prom(""), "")) })
	fams := parseProm(t, r.stdout)
	if r.code == 2 || fams["vtpmctl_host_check"] == nil {
		t.Fatalf("host check: exit %d %s\n%s", r.code, r.stderr, r.stdout)
	}
	if v, ok := sample(fams, "vtpmctl_host_check", "check", "SWTPM-BINARIES", "status", "pass"); !ok || v != 1 {
		t.Errorf("SWTPM-BINARIES not pass on the live compute\n%s", r.stdout)
	}
	if _, ok := sample(fams, "vtpmctl_host_trait", "trait", "COMPUTE_SECURITY_TPM_2_0"); !ok {
		t.Errorf("no TPM 2.0 trait\n%s", r.stdout)
	}
	if _, ok := sample(fams, "vtpmctl_host_info", "layout", "packages"); !ok {
		t.Errorf("no host info with the packages layout\n%s", r.stdout)
	}

	r = h.run(func(streams *IOStreams) error {
		return runHostsAudit(ctx, &hostsOptions{IO: streams, Global: prom("devcloud-admin")})
	})
	fams = parseProm(t, r.stdout)
	if v, ok := sample(fams, "vtpmctl_fleet_hosts"); r.code == 2 || !ok || v < 2 {
		t.Errorf("hosts audit: exit %d, %v hosts %s\n%s", r.code, v, r.stderr, r.stdout)
	}
	if v, ok := sample(fams, "vtpmctl_fleet_hosts_capable", "capability", "tpm_2_0"); !ok || v < 1 {
		t.Errorf("no usable TPM 2.0 host\n%s", r.stdout)
	}

	r = h.run(func(streams *IOStreams) error {
		return runSecretsAudit(ctx, &secretsAuditOptions{IO: streams, Global: prom("devcloud-admin"), AllProjects: true, Concurrency: 4, ServiceProject: "service"})
	})
	fams = parseProm(t, r.stdout)
	if _, ok := sample(fams, "vtpmctl_secrets_orphans"); r.code == 2 || !ok || fams["vtpmctl_secrets_guests"] == nil {
		t.Errorf("secrets audit: exit %d %s\n%s", r.code, r.stderr, r.stdout)
	}
}
