package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostsAuditReportNamingAnotherHost: the fixture's two computes are
// devcloud (hypervisor vm) and devcloud-fake. devcloud-fake's report
// naming vm as its hypervisor hostname used to become devcloud's report,
// so devcloud's own failing report vanished and the audit exited 0. Now
// devcloud's failure stands (exit 1) and the stray claim is a warning on
// devcloud's row.
func TestHostsAuditReportNamingAnotherHost(t *testing.T) {
	fixtureCloud(t)
	dir := t.TempDir()
	for name, rep := range map[string]string{
		"fake.json": `{"schema": "vtpmctl.host-check/1", "host": "devcloud-fake", "nova_release": "zed", "checks": [], "traits": ["COMPUTE_SECURITY_TPM_1_2", "COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_UEFI_SECURE_BOOT"], "facts": {"hypervisor_hostname": "vm"}}`,
		"devcloud.json": `{"schema": "vtpmctl.host-check/1", "host": "devcloud", "nova_release": "zed", "traits": ["COMPUTE_SECURITY_TPM_1_2", "COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_UEFI_SECURE_BOOT"], "facts": {},
 "checks": [{"id": "KEEP-TPM-STATE", "status": "fail", "message": "a stop wipes the TPM"}]}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(rep), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, errs, code := runCLI(t, "--os-cloud", "fake", "hosts", "audit", "--host-reports", dir, "-f", "json")
	if code != 1 || !strings.Contains(errs, "host(s) have failing checks") {
		t.Fatalf("exit %d, want 1 (devcloud's report fails): %s", code, errs)
	}
	var audit struct {
		Hosts []struct {
			Host   string `json:"host"`
			Checks []struct{ ID, Status, Message string }
		} `json:"hosts"`
	}
	jsonOut(t, out, &audit)
	var warned, failed bool
	for _, r := range audit.Hosts {
		if r.Host != "devcloud" {
			continue
		}
		for _, c := range r.Checks {
			warned = warned || c.ID == "HOST-REPORT" && c.Status == "warn" && strings.Contains(c.Message, "(host devcloud-fake, hypervisor_hostname vm) names this host")
			failed = failed || c.ID == "KEEP-TPM-STATE" && c.Status == "fail"
		}
	}
	if !warned || !failed {
		t.Errorf("devcloud: HOST-REPORT warning %v, its own KEEP-TPM-STATE failure %v\n%s", warned, failed, out)
	}
}
