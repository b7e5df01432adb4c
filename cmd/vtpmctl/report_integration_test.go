//go:build integration

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/devcloudtest"
)

// ReportDir keeps the rendered page and its screenshot after the test,
// for a human to look at.
const reportDir = "/var/tmp/vtpmctl-report-test"

// TestIntegrationReportInBrowser renders the report from real audit results
// of the local cloud (a running vTPM guest included) and opens it in
// headless Chromium: the page renders offline and says what it should.
func TestIntegrationReportInBrowser(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	_, sid := bootVTPMGuest(t, "report")
	// the report's upgrade section: to the next release, or today's on the newest
	to := map[string]nova.Release{"zed": nova.Dalmatian, "2025.1": nova.Gazpacho, "2026.1": nova.Hibiscus}[devcloudtest.Release()]
	if to == nova.ReleaseUnknown {
		to = cloudRelease(t)
	}
	os.MkdirAll(reportDir, 0o755)
	html := filepath.Join(reportDir, "report.html")
	r := h.run(func(streams *IOStreams) error {
		return runReport(ctx, &reportOptions{IO: streams, Global: h.global("devcloud-admin"), Out: html, UpgradeTo: to})
	})
	if r.code != 0 {
		t.Fatalf("report: exit %d: %s", r.code, r.stderr)
	}
	page, _ := os.ReadFile(html)
	for _, external := range []string{"http://", "https://", "<script src", "<link "} {
		if strings.Contains(string(page), external) {
			t.Errorf("the page references something external (%q): it must render offline", external)
		}
	}
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium is not installed: `make integration` installs Debian's chromium package")
	}
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--hide-scrollbars", "--user-data-dir=" + t.TempDir(), "--window-size=1200,1400"}
	dom, err := exec.Command(chromium, append(args, "--dump-dom", "file://"+html)...).Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v", err)
	}
	for _, want := range []string{"vTPM readiness report", "Fleet and scheduling", "vTPM secrets (Barbican)", "Upgrade to " + to.String(),
		"Hosts by vTPM capability", "vTPM guests by risk", "EVACUATION-RISK", "STRANDED", sid} {
		if !strings.Contains(string(dom), want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	png := filepath.Join(reportDir, "report.png")
	os.Remove(png)
	if out, err := exec.Command(chromium, append(args, "--screenshot="+png, "file://"+html)...).CombinedOutput(); err != nil {
		t.Fatalf("chromium --screenshot: %v\n%s", err, out)
	}
	if st, err := os.Stat(png); err != nil || st.Size() < 20000 {
		t.Fatalf("screenshot %s: %v (a blank page is a few KB)", png, err)
	}
	t.Logf("report %s, screenshot %s", html, png)
}
