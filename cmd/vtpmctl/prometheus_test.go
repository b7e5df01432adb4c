package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// parseProm reads -f prometheus back with the client library's parser.
func parseProm(t *testing.T, text string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("does not parse: %v\n%s", err, text)
	}
	return fams
}

// sample finds the value of a series with these labels.
func sample(fams map[string]*dto.MetricFamily, name string, labels ...string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.Metric {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		for i := 0; i < len(labels); i += 2 {
			if have[labels[i]] != labels[i+1] {
				continue next
			}
		}
		return m.GetGauge().GetValue(), true
	}
	return 0, false
}

func TestPrometheusOutput(t *testing.T) {
	fixtureCloud(t)
	out, errs, code := runCLI(t, "--os-cloud", "fake", "hosts", "audit", "-f", "prometheus")
	fams := parseProm(t, out)
	if code > 1 || len(fams) == 0 {
		t.Fatalf("hosts audit: exit %d %s", code, errs)
	}
	if v, ok := sample(fams, "vtpmctl_fleet_hosts"); !ok || v < 1 {
		t.Errorf("vtpmctl_fleet_hosts %v %v\n%s", v, ok, out)
	}
	if _, ok := sample(fams, "vtpmctl_fleet_hosts_capable", "capability", "tpm_2_0"); !ok {
		t.Errorf("no capability gauge\n%s", out)
	}
	if _, ok := sample(fams, "vtpmctl_host_trait", "trait", "COMPUTE_SECURITY_TPM_2_0"); !ok {
		t.Errorf("no trait series\n%s", out)
	}
	// The guests at risk are the fleet's: hosts audit keeps the series a
	// host check no longer prints (hostcheck TestHostGauges).
	if fams["vtpmctl_host_vtpm_guests_at_risk"] == nil || fams["vtpmctl_host_check"] == nil {
		t.Errorf("no at-risk or check series\n%s", out)
	}

	out, errs, code = runCLI(t, "--os-cloud", "fake", "secrets", "audit", "-f", "prometheus")
	fams = parseProm(t, out)
	if code > 1 {
		t.Fatalf("secrets audit: exit %d %s", code, errs)
	}
	for _, name := range []string{"vtpmctl_secrets_guests", "vtpmctl_secrets_orphans", "vtpmctl_secrets_projects_not_auditable", "vtpmctl_last_run_timestamp_seconds"} {
		if fams[name] == nil {
			t.Errorf("no %s\n%s", name, out)
		}
	}
	if _, ok := sample(fams, "vtpmctl_secrets_guests", "result", "ok"); !ok {
		t.Errorf("no ok guests series\n%s", out)
	}

	// A command without a metrics view says so, as a usage error, before
	// any work (a single-object result and a document included).
	for _, args := range [][]string{{"--os-cloud", "fake", "flavor", "list"}, {"check", "--image-property", "hw_tpm_version=2.0", "--nova-release", "zed"}, {"plan", "checklist", "../../examples/plan.yaml"}} {
		out, errs, code := runCLI(t, append(args, "-f", "prometheus")...)
		if code != 2 || out != "" || !strings.Contains(errs, "-f prometheus is for host check, hosts audit and secrets audit") {
			t.Errorf("%v -f prometheus: exit %d %q %s", args, code, out, errs)
		}
	}
}

// TestPrometheusBitLocker: with host check reports, hosts audit counts
// the vTPM guests by BitLocker-recovery risk, per host and for the fleet,
// and no series names a guest.
func TestPrometheusBitLocker(t *testing.T) {
	fixtureCloud(t)
	dir := t.TempDir()
	rep := `{"schema": "vtpmctl.host-check/1", "host": "devcloud", "nova_release": "zed", "checks": [{"id": "BITLOCKER-RISK", "status": "warn", "message": "1 high"}],
 "traits": ["COMPUTE_SECURITY_TPM_1_2", "COMPUTE_SECURITY_TPM_2_0"], "facts": {"hypervisor_hostname": "vm"},
 "vtpm_guests": [{"uuid": "357178eb-a467-4913-b017-b2e1b1c7b6fc", "name": "instance-00000001",
  "bitlocker": {"risk": "high", "reasons": ["NVRAM-KEPT"], "secure_boot": true, "certificates": "2011", "nvram_kept": "no", "vtpm_state_kept": "no"}}]}`
	if err := os.WriteFile(filepath.Join(dir, "devcloud.json"), []byte(rep), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runCLI(t, "--os-cloud", "fake", "hosts", "audit", "--host-reports", dir, "-f", "prometheus")
	fams := parseProm(t, out)
	if code > 1 {
		t.Fatalf("hosts audit: exit %d %s", code, errs)
	}
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"vtpmctl_fleet_bitlocker_risk_guests", []string{"level", "high"}, 1},
		{"vtpmctl_fleet_bitlocker_risk_guests", []string{"level", "low"}, 0},
		{"vtpmctl_host_bitlocker_risk_guests", []string{"host", "devcloud", "level", "high"}, 1},
		// The report predates certs_remedy: 2011 on a host that recreates
		// NVRAM is the template's (a package update).
		{"vtpmctl_host_secure_boot_certs_guests", []string{"host", "devcloud", "certs", "2011"}, 1},
		{"vtpmctl_host_secure_boot_certs_guests", []string{"host", "devcloud", "certs", "2023"}, 0},
		{"vtpmctl_host_secure_boot_remedy_guests", []string{"host", "devcloud", "remedy", "package-update"}, 1},
		{"vtpmctl_host_secure_boot_remedy_guests", []string{"host", "devcloud", "remedy", "update-nvram"}, 0},
		{"vtpmctl_fleet_secure_boot_certs_guests", []string{"certs", "2011"}, 1},
		{"vtpmctl_fleet_secure_boot_remedy_guests", []string{"remedy", "package-update"}, 1},
	} {
		if v, ok := sample(fams, c.name, c.labels...); !ok || v != c.want {
			t.Errorf("%s%v = %v (%v), want %v\n%s", c.name, c.labels, v, ok, c.want, out)
		}
	}
	for _, name := range []string{"fx-win11-server", "instance-00000001", "357178eb"} {
		if strings.Contains(out, name) {
			t.Errorf("metrics name the guest (%s)", name)
		}
	}
	out, _, _ = runCLI(t, "--os-cloud", "fake", "hosts", "audit", "--host-reports", dir, "-f", "json")
	var audit struct {
		Summary struct {
			BitLocker  map[string]int `json:"bitlocker_risk_guests"`
			SecureBoot struct {
				ByCerts  map[string]int `json:"by_certificates"`
				ByRemedy map[string]int `json:"by_remedy"`
			} `json:"secure_boot_guests"`
		} `json:"summary"`
		Hosts []struct {
			AtRisk []struct {
				Risk string `json:"bitlocker_risk"`
			} `json:"at_risk_guests"`
			SecureBoot struct {
				ByRemedy map[string]int `json:"by_remedy"`
			} `json:"secure_boot_guests"`
		} `json:"hosts"`
	}
	jsonOut(t, out, &audit)
	if audit.Summary.BitLocker["high"] != 1 || len(audit.Hosts) == 0 || len(audit.Hosts[0].AtRisk) != 1 || audit.Hosts[0].AtRisk[0].Risk != "high" ||
		audit.Summary.SecureBoot.ByCerts["2011"] != 1 || audit.Summary.SecureBoot.ByRemedy["package-update"] != 1 || audit.Hosts[0].SecureBoot.ByRemedy["package-update"] != 1 {
		t.Errorf("no fleet count or guest risk in the JSON: %+v\n%s", audit, out)
	}
}
