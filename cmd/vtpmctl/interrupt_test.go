package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud/scale"
	"github.com/vtpmctl/vtpmctl/internal/fileout"
	"github.com/vtpmctl/vtpmctl/internal/output"
)

// A run that did not finish publishes nothing (issue 40, point 4). These
// tests run the CLI as a process (this test binary named vtpmctl, as
// testscript.Main runs it), hold one of its requests in the fault proxy
// so that it is mid-run, and send it a real signal there.

// cliBinary is this test binary copied as vtpmctl into dir.
func cliBinary(t *testing.T, dir string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "vtpmctl")
	if b, err := os.ReadFile(self); err != nil || os.WriteFile(bin, b, 0o700) != nil {
		t.Fatalf("copying the CLI: %v", err)
	}
	return bin
}

type signalled struct {
	code           int
	stdout, stderr string
}

// runSignalled runs the CLI with args against the cloud behind the
// proxy (its clouds.yaml entry is "cloud"). At the first request at
// matches, it sends sig to the CLI; that request, and every later one at
// matches, is held until the CLI has exited, then dropped (never sent).
func runSignalled(t *testing.T, bin, upstream string, scope fakecloud.Scope, at func(*http.Request) bool, sig syscall.Signal, args ...string) signalled {
	t.Helper()
	exited := make(chan struct{})
	var once sync.Once
	var cmd *exec.Cmd
	started := make(chan struct{})
	px, err := fakecloud.StartProxy([]string{upstream}, fakecloud.FaultPlan{Kind: fakecloud.NoFault,
		Before: func(r *http.Request) bool {
			if !at(r) {
				return false
			}
			once.Do(func() {
				<-started
				cmd.Process.Signal(sig)
			})
			select {
			case <-exited:
			case <-time.After(30 * time.Second):
				t.Errorf("the CLI did not end within 30 s of %s", sig)
			}
			return true
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	clouds := filepath.Join(t.TempDir(), "clouds.yaml")
	if err := os.WriteFile(clouds, []byte(fakecloud.CloudsYAML("cloud", px.URL(upstream), scope)), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	cmd = exec.Command(bin, append([]string{"--os-cloud", "cloud", "--timeout", "30s"}, args...)...)
	cmd.Env = append(os.Environ(), "OS_CLIENT_CONFIG_FILE="+clouds, "OS_CLOUD=")
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	close(started)
	err = cmd.Wait()
	close(exited)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode() // -1: ended by the signal, not by vtpmctl
	} else if err != nil {
		t.Fatal(err)
	}
	return signalled{code: code, stdout: out.String(), stderr: errb.String()}
}

// secretsListAfter matches the key manager's secret lists after the
// first n: the audit is then mid-way through its projects.
func secretsListAfter(n int) func(*http.Request) bool {
	var mu sync.Mutex
	seen := 0
	return func(r *http.Request) bool {
		if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/key-manager/v1/secrets") {
			return false
		}
		mu.Lock()
		defer mu.Unlock()
		seen++
		return seen > n
	}
}

// sayOneLine checks stderr is exactly one line, matching want.
func sayOneLine(t *testing.T, stderr string, want *regexp.Regexp) {
	t.Helper()
	if strings.Count(stderr, "\n") != 1 || !want.MatchString(stderr) {
		t.Errorf("stderr is not the one line %s:\n%s", want, stderr)
	}
}

// TestInterruptedRunPublishesNothing: secrets audit -f json --junit and
// report -o, stopped by SIGTERM or SIGINT while the audit is listing its
// projects' secrets: the files they would replace are left byte for
// byte, stdout holds nothing (no document that looks whole), one line on
// stderr says what was interrupted and how far it got, and the exit is
// 143 or 130. Before, secrets audit printed the half-done audit as a
// whole document (its unread projects "not auditable") with exit 1, and
// report replaced the previous page, said "report written", and exited 0.
func TestInterruptedRunPublishesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the CLI as a process")
	}
	dir := t.TempDir()
	bin := cliBinary(t, dir)
	c, err := scale.New(fakecloud.New(t), scale.Config{Guests: 60, Projects: 20, Hypervisors: 3, Images: 2, Users: 4})
	if err != nil {
		t.Fatal(err)
	}
	admin := fakecloud.Scope{ProjectName: "admin"}
	old := []byte("<html>the previous report</html>\n")
	for _, tc := range []struct {
		name string
		sig  syscall.Signal
		args []string
		line string
	}{
		{"secrets audit, SIGTERM", syscall.SIGTERM, []string{"secrets", "audit", "--all-projects", "-f", "json", "--junit", "OLD"},
			`^vtpmctl: secrets audit interrupted \(SIGTERM\) while auditing secrets and ACLs: [0-9]+/[0-9]+ projects; nothing written\n$`},
		{"secrets audit yaml, SIGINT", syscall.SIGINT, []string{"secrets", "audit", "--all-projects", "-f", "yaml"},
			`^vtpmctl: secrets audit interrupted \(SIGINT\) while auditing secrets and ACLs: [0-9]+/[0-9]+ projects; nothing written\n$`},
		{"report, SIGTERM", syscall.SIGTERM, []string{"report", "-o", "OLD"},
			`^vtpmctl: report interrupted \(SIGTERM\) while auditing secrets and ACLs: [0-9]+/[0-9]+ projects; .*/old\.html not written: the file there is left as it was\n$`},
		{"report, SIGINT", syscall.SIGINT, []string{"report", "-o", "OLD"},
			`^vtpmctl: report interrupted \(SIGINT\) while auditing secrets and ACLs: [0-9]+/[0-9]+ projects; .*/old\.html not written: the file there is left as it was\n$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "old.html")
			if err := os.WriteFile(file, old, 0o600); err != nil {
				t.Fatal(err)
			}
			args := append([]string(nil), tc.args...)
			for i := range args {
				if args[i] == "OLD" {
					args[i] = file
				}
			}
			r := runSignalled(t, bin, c.URL, admin, secretsListAfter(2), tc.sig, args...)
			if want := 128 + int(tc.sig); r.code != want {
				t.Errorf("exit %d, want %d", r.code, want)
			}
			if got, _ := os.ReadFile(file); !bytes.Equal(got, old) {
				t.Errorf("the previous file was replaced (%d bytes)", len(got))
			}
			if left, _ := filepath.Glob(filepath.Join(filepath.Dir(file), ".*")); len(left) > 0 {
				t.Errorf("temp files left: %v", left)
			}
			if r.stdout != "" || json.Valid([]byte(r.stdout)) {
				t.Errorf("stdout:\n%s", r.stdout)
			}
			sayOneLine(t, r.stderr, regexp.MustCompile(tc.line))
		})
	}
}

// TestInterruptedWriteSaysWhatItWrote: plan apply stopped by SIGINT at
// its flavor write, after the image phase wrote its image: no changes
// table on stdout, and the one line names the object changed and the one
// not confirmed. Before, it printed the changes table (the flavor
// "failed") and a line per object, and exited 1.
func TestInterruptedWriteSaysWhatItWrote(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the CLI as a process")
	}
	dir := t.TempDir()
	bin := cliBinary(t, dir)
	c := fixtureCloud(t)
	c.Handle("PUT /compute/v2.1/flavors/*", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the flavor write reached the cloud: %s", r.URL.Path)
	}).Optional("dropped by the proxy")
	plan := filepath.Join(dir, "plan.yaml")
	os.WriteFile(plan, []byte("version: 1\nimages:\n  - name: "+fakecloud.FixtureImage+"\n    tpm_version: \"2.0\"\n    tpm_model: tpm-tis\n"+
		"flavors:\n  - name: "+fakecloud.FixtureFlavor+"\n    vcpus: 1\n    ram: 64\n    disk: 1\n    tpm_version: \"2.0\"\n    tpm_model: tpm-tis\nvms: []\n"), 0o600)
	flavorWrite := func(r *http.Request) bool {
		return r.Method != http.MethodGet && strings.Contains(r.URL.Path, "/flavors/")
	}
	r := runSignalled(t, bin, c.URL, fakecloud.Scope{ProjectID: fakecloud.ProjectID}, flavorWrite, syscall.SIGINT, "plan", "apply", plan, "--yes")
	if r.code != 130 || r.stdout != "" || c.Count("PATCH /image/v2/images/") != 1 {
		t.Errorf("exit %d, %d image write(s), stdout:\n%s", r.code, c.Count("PATCH /image/v2/images/"), r.stdout)
	}
	sayOneLine(t, r.stderr, regexp.MustCompile(`^vtpmctl: plan apply interrupted \(SIGINT\) while applying: 1/1; 1 of 2 object\(s\) changed before it stopped \(`+
		fakecloud.FixtureImage+`\); not confirmed: `+fakecloud.FixtureFlavor+` \(run it again to finish\); no result printed\n$`))
}

// TestTimeoutPublishesNothing: a request that outlasts --timeout ends
// report (exit 1, the read named) and the previous page stays; nothing
// on stdout.
func TestTimeoutPublishesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the CLI as a process")
	}
	dir := t.TempDir()
	bin := cliBinary(t, dir)
	c, err := scale.New(fakecloud.New(t), scale.Config{Guests: 6, Projects: 2, Hypervisors: 2})
	if err != nil {
		t.Fatal(err)
	}
	px, err := fakecloud.StartProxy([]string{c.URL}, fakecloud.FaultPlan{Kind: fakecloud.FaultHang, Rate: 1,
		Match: func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/os-hypervisors/detail") }})
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	clouds := filepath.Join(dir, "clouds.yaml")
	os.WriteFile(clouds, []byte(fakecloud.CloudsYAML("cloud", px.URL(c.URL), fakecloud.Scope{ProjectName: "admin"})), 0o600)
	html := filepath.Join(dir, "r.html")
	old := []byte("<html>the previous report</html>\n")
	os.WriteFile(html, old, 0o600)
	cmd := exec.Command(bin, "--os-cloud", "cloud", "--timeout", "1s", "report", "-o", html)
	cmd.Env = append(os.Environ(), "OS_CLIENT_CONFIG_FILE="+clouds, "OS_CLOUD=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := -1
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	got, _ := os.ReadFile(html)
	if code != 1 || out.Len() != 0 || !bytes.Equal(got, old) || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), "hosts audit: ") {
		t.Errorf("exit %d, file kept %v, stdout %q, stderr:\n%s", code, bytes.Equal(got, old), out.String(), errb.String())
	}
}

// TestSecondSignalExitsAtOnce: the first signal ends the run's context
// with the signal and the step the run was on as its cause; a second one
// exits at once with 128 + its number, saying so in one line.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	run := &runState{}
	run.start("secrets audit")
	run.note("auditing secrets and ACLs: 3/20 projects")
	var errb bytes.Buffer
	exited := make(chan int, 1)
	ctx, stop := notifySignals(withRun(context.Background(), run), &errb, func(code int) { exited <- code })
	defer stop()
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("SIGTERM did not end the run's context")
	}
	in, ok := interruptOf(ctx)
	if !ok || in.sig != syscall.SIGTERM || in.exitCode() != 143 || in.step != "auditing secrets and ACLs: 3/20 projects" {
		t.Fatalf("cause %v", context.Cause(ctx))
	}
	run.note("later") // the step is the one the signal found
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	select {
	case code := <-exited:
		if code != 130 || strings.Count(errb.String(), "\n") != 1 || !strings.HasPrefix(errb.String(), "vtpmctl: SIGINT again: stopped at once") {
			t.Errorf("exit %d, stderr %q", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a second signal did not exit")
	}
	if in.step != "auditing secrets and ACLs: 3/20 projects" {
		t.Errorf("step %q", in.step)
	}
}

// TestInterruptLine: the one line says the command, the signal, the step
// and what the run wrote: nothing, a cut stream (never a whole
// document), a file left as it was, or the writes made.
func TestInterruptLine(t *testing.T) {
	dir := t.TempDir()
	kept := filepath.Join(dir, "kept.html")
	os.WriteFile(kept, []byte("x"), 0o600)
	in := &interruption{sig: syscall.SIGTERM, step: "auditing secrets and ACLs: 3/20 projects"}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{context.Canceled, "nothing written"},
		{&output.InterruptedError{Cause: in, Format: "json"}, "nothing written"},
		{&output.InterruptedError{Cause: in, Format: "json", Partial: true, Elements: 12345},
			"the JSON on stdout stops after 12,345 whole element(s) and is incomplete (no closing bracket)"},
		{&output.InterruptedError{Cause: in, Format: "yaml", Partial: true, Elements: 2},
			"the YAML on stdout stops after 2 whole element(s) and is incomplete (its last line, which says so, is no YAML)"},
		{&output.InterruptedError{Cause: in, Format: "table", Partial: true, Elements: 2},
			"the table on stdout stops after 2 whole element(s) and is incomplete (no bottom border)"},
		{fmt.Errorf("--junit: %w", &fileout.InterruptedError{Path: kept, Cause: in}), kept + " not written: the file there is left as it was"},
		{&fileout.InterruptedError{Path: filepath.Join(dir, "new.html"), Cause: in}, filepath.Join(dir, "new.html") + " not written"},
		{&fileout.InterruptedError{Path: "-", Cause: in, Partial: true}, "stdout got part of its output only, and is incomplete"},
		{withWritesMade(&output.InterruptedError{Cause: in}, func() string {
			return changesMade([]nova.ObjectPlan{
				{Name: "a", Changes: []nova.Change{{Key: "k", New: "v", Action: nova.Added}}},
				{Name: "b", Changes: []nova.Change{{Key: "k", New: "v", Action: nova.Added}}, Err: context.Canceled},
				{Name: "c", Changes: []nova.Change{{Key: "k", New: "v", Action: nova.Unchanged}}},
			}, false)
		}), "1 of 2 object(s) changed before it stopped (a); not confirmed: b (run it again to finish); no result printed"},
	} {
		e := &interruptedError{in: in, command: "secrets audit", err: tc.err}
		want := "secrets audit interrupted (SIGTERM) while auditing secrets and ACLs: 3/20 projects; " + tc.want
		if got := e.line(); got != want {
			t.Errorf("%v:\n got %s\nwant %s", tc.err, got, want)
		}
		var errb bytes.Buffer
		if code := exitCode(e, &errb); code != 143 || errb.String() != "vtpmctl: "+want+"\n" {
			t.Errorf("exitCode %d, %q", code, errb.String())
		}
	}
}
