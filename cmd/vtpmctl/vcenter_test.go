package main

import (
	"crypto/tls"
	"net/url"
	"strings"
	"testing"

	"github.com/vmware/govmomi/simulator"
	"go.yaml.in/yaml/v3"
)

// TestPlanImportFromVCenter: `plan import --vcenter` against govmomi's
// simulator, credentials from GOVC_* only, never echoed.
func TestPlanImportFromVCenter(t *testing.T) {
	m := simulator.VPX()
	if err := m.Create(); err != nil {
		t.Fatal(err)
	}
	m.Service.TLS = new(tls.Config)
	m.Service.Listen = &url.URL{User: url.UserPassword("auditor", "pw-vc-secret")}
	s := m.Service.NewServer()
	t.Cleanup(func() { s.Close(); m.Remove() })
	host := s.URL.Host

	t.Setenv("GOVC_USERNAME", "auditor")
	t.Setenv("GOVC_PASSWORD", "pw-vc-secret")
	t.Setenv("GOVC_INSECURE", "1")
	out, errOut, code := runCLI(t, "plan", "import", "--vcenter", host, "--tpm-model", "tpm-crb")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var p struct {
		VMs []struct {
			Name       string `yaml:"name"`
			VCenter    string `yaml:"vcenter"`
			SourceVTPM string `yaml:"source_vtpm"`
		} `yaml:"vms"`
	}
	if err := yaml.Unmarshal([]byte(out), &p); err != nil || len(p.VMs) != 4 {
		t.Fatalf("plan: %v %d\n%s", err, len(p.VMs), out)
	}
	for _, v := range p.VMs {
		if v.VCenter != s.URL.Hostname() || (v.SourceVTPM != "no" && v.SourceVTPM != "yes") {
			t.Errorf("%+v", v)
		}
	}
	if strings.Contains(out+errOut, "pw-vc-secret") {
		t.Error("the password reached the output")
	}

	// credentials on the command line are refused; a wrong password is one line
	if _, e, c := runCLI(t, "plan", "import", "--vcenter", "https://auditor:pw-vc-secret@"+host+"/sdk"); c != 2 || strings.Contains(e, "pw-vc-secret") || !strings.Contains(e, "GOVC_PASSWORD") {
		t.Errorf("credentials in the URL: exit %d %q", c, e)
	}
	t.Setenv("GOVC_PASSWORD", "wrong-one")
	if _, e, c := runCLI(t, "plan", "import", "--vcenter", host); c != 1 || strings.Contains(e, "wrong-one") || strings.Count(strings.TrimSpace(e), "\n") != 0 {
		t.Errorf("wrong password: exit %d %q", c, e)
	}
}
