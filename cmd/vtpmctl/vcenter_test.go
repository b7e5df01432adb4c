package main

import (
	"strings"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud/vcsim"

	"go.yaml.in/yaml/v3"
)

// TestPlanImportFromVCenter: `plan import --vcenter` against govmomi's
// simulator, credentials from GOVC_* only, never echoed.
func TestPlanImportFromVCenter(t *testing.T) {
	sdk, user, pass := vcsim.Start(t, 0)
	host := sdk.Host

	t.Setenv("GOVC_USERNAME", user)
	t.Setenv("GOVC_PASSWORD", pass)
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
		if v.VCenter != sdk.Hostname() || (v.SourceVTPM != "no" && v.SourceVTPM != "yes") {
			t.Errorf("%+v", v)
		}
	}
	if strings.Contains(out+errOut, pass) {
		t.Error("the password reached the output")
	}

	// credentials on the command line are refused; a wrong password is one line
	if _, e, c := runCLI(t, "plan", "import", "--vcenter", "https://auditor:"+pass+"@"+host+"/sdk"); c != 2 || strings.Contains(e, pass) || !strings.Contains(e, "GOVC_PASSWORD") {
		t.Errorf("credentials in the URL: exit %d %q", c, e)
	}
	t.Setenv("GOVC_PASSWORD", "wrong-one")
	if _, e, c := runCLI(t, "plan", "import", "--vcenter", host); c != 1 || strings.Contains(e, "wrong-one") || strings.Count(strings.TrimSpace(e), "\n") != 0 {
		t.Errorf("wrong password: exit %d %q", c, e)
	}
}

// TestPlanImportVCenterTimeout: a vCenter that accepts the connection and
// never answers is bounded by the global --timeout, like OpenStack: one
// line naming the vCenter and the timeout, exit 1, within seconds.
func TestPlanImportVCenterTimeout(t *testing.T) {
	addr := fakecloud.Silent(t)
	t.Setenv("GOVC_USERNAME", "auditor")
	t.Setenv("GOVC_PASSWORD", "pw-vc-secret")
	type res struct {
		errs string
		code int
	}
	done := make(chan res, 1)
	start := time.Now()
	go func() {
		_, e, c := runCLI(t, "--timeout", "1s", "plan", "import", "--vcenter", addr)
		done <- res{e, c}
	}()
	select {
	case r := <-done:
		if r.code != 1 || !strings.Contains(r.errs, "vCenter 127.0.0.1") || !strings.Contains(r.errs, "no answer within 1s (--timeout;") ||
			strings.Count(strings.TrimSpace(r.errs), "\n") != 0 || time.Since(start) > 5*time.Second {
			t.Errorf("after %s: exit %d %q", time.Since(start), r.code, r.errs)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("plan import --vcenter still waiting after 30s with --timeout 1s")
	}
}
