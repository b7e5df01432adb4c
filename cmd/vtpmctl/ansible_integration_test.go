//go:build integration

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/internal/devcloudtest"
)

// hostBAddr is host B's sshd (devcloud/second-compute.sh: BIP); it takes
// root's key only from the cloud's namespace, where this test runs.
const hostBAddr = "10.99.26.2"

// TestIntegrationAnsibleHostAudit runs the fleet playbook of
// examples/ansible for real, as an operator would: compute A (host
// devcloud) over Ansible's local connection, reading the chroot's files
// as an auditor reads a mounted host; compute B (devcloud-b) over ssh as
// root, with the key, pinned host key and python3 of its chroot. Then
// `hosts audit --host-reports` holds what the play collected against the
// cloud. One release is enough: the playbook is the same on every one.
func TestIntegrationAnsibleHostAudit(t *testing.T) {
	devcloudtest.Only(t, "2026.1")
	start := time.Now()
	playbookBin, err := exec.LookPath("ansible-playbook")
	if err != nil {
		t.Fatalf("%v: install Debian's ansible-core (make examples-check does, as root)", err)
	}
	devcloudtest.Require(t) // and hosts audit finds the cloud's clouds.yaml
	hostA, hostB := devcloudtest.HostA(t), devcloudtest.HostB(t)
	playbook, err := filepath.Abs("../../examples/ansible/host-audit.yml")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	// This test binary is the CLI when its name is vtpmctl (TestMain), as
	// in ComputeHost.RunCLI: the code under test, without another build.
	vtpmctl := filepath.Join(work, "bin", "vtpmctl")
	copyExecutable(t, vtpmctl)
	reports := filepath.Join(work, "reports")
	// On each host: /tmp there (B's own /tmp is not this machine's).
	remote := fmt.Sprintf("/tmp/vtpmctl-ansible-%d/vtpmctl", os.Getpid())

	inventory := filepath.Join(work, "inventory.yml")
	writeInventory(t, inventory, map[string]map[string]any{
		hostA.Name: {
			"ansible_connection":         "local",
			"ansible_python_interpreter": "{{ ansible_playbook_python }}",
			"vtpmctl_check_args":         checkArgsOf(hostCheckOpts(nil, nil, "")),
		},
		hostB.Name: hostBVars(t),
	})
	an := newAnsibleRunner(t, work, inventory)
	t.Cleanup(func() {
		// the binary's directory on both hosts, by the same inventory
		if out, err := an.cmd(context.Background(), "ansible", "compute", "-m", "ansible.builtin.file",
			"-a", "path="+filepath.Dir(remote)+" state=absent").CombinedOutput(); err != nil {
			t.Errorf("removing %s from the hosts: %v\n%s", filepath.Dir(remote), err, out)
		}
	})

	extra, _ := json.Marshal(map[string]string{"vtpmctl_local": vtpmctl, "vtpmctl_remote": remote, "reports_dir": reports})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	t0 := time.Now()
	out, err := an.cmd(ctx, playbookBin, playbook, "-e", string(extra)).CombinedOutput()
	playTime := time.Since(t0)
	// A failing check is host check's exit 1, reported, not a failed task:
	// the play itself succeeds.
	if err != nil {
		t.Fatalf("ansible-playbook: %v\n%s", err, out)
	}
	checkRecap(t, out, hostA.Name, hostB.Name, "localhost")

	// What the play collected: one report per inventory host, named for it,
	// and the merged JUnit of `hosts report`.
	names, _ := filepath.Glob(filepath.Join(reports, "*"))
	for i := range names {
		names[i] = filepath.Base(names[i])
	}
	want := []string{hostA.Name + ".json", hostB.Name + ".json", "fleet.xml"}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("the play left %v in its reports dir, want %v\n%s", names, want, out)
	}
	collected := map[string]hostcheck.Report{}
	for _, h := range []string{hostA.Name, hostB.Name} {
		reps, err := hostcheck.ReadReports([]string{filepath.Join(reports, h+".json")})
		if err != nil {
			t.Fatalf("the report collected from %s: %v", h, err)
		}
		r := reps[0]
		if r.Host != h || r.NovaRelease.String() != devcloudtest.Release() || r.Summary.Pass == 0 || r.Facts.HypervisorHostname == "" {
			t.Errorf("the report collected from %s: host %q, nova %q, %+v, hypervisor %q", h, r.Host, r.NovaRelease, r.Summary, r.Facts.HypervisorHostname)
		}
		collected[h] = r
	}
	checkFleetJUnit(t, filepath.Join(reports, "fleet.xml"), hostA.Name, hostB.Name)

	// The fleet audit with what the play collected: the operator's next
	// command, against the cloud.
	t1 := time.Now()
	audit := exec.Command(vtpmctl, "--os-cloud", "devcloud-admin", "hosts", "audit", "--host-reports", reports, "-f", "json")
	var stdout, stderr bytes.Buffer
	audit.Stdout, audit.Stderr = &stdout, &stderr
	err = audit.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	var res fleet.Result
	if jerr := json.Unmarshal(stdout.Bytes(), &res); jerr != nil || len(res.Hosts) == 0 {
		t.Fatalf("hosts audit: %v, JSON %v (%d hosts)\n%s\n%s", err, jerr, len(res.Hosts), stdout.String(), stderr.String())
	}
	// Both computes pass their checks and Placement holds what their
	// configuration gives: a clean fleet, exit 0, nothing to warn about
	// (a report matching no hypervisor would be warned of).
	if err != nil || res.Summary.Failing != 0 || stderr.Len() > 0 {
		t.Errorf("hosts audit: %v, %d host(s) failing; stderr: %s\n%s", err, res.Summary.Failing, stderr.String(), stdout.String())
	}
	matched := map[string]bool{}
	for _, h := range res.Hosts {
		drift := findCheck(h.Report, "CONFIG-DRIFT")
		rep, ours := collected[h.Host]
		if !ours {
			// a compute the play did not visit (the fake driver's)
			if drift.Status != hostcheck.Warn || !strings.Contains(drift.Message, "no host check report") {
				t.Errorf("hosts audit: %s has no report, yet CONFIG-DRIFT %s %s", h.Host, drift.Status, drift.Message)
			}
			continue
		}
		// Matched: held against this host's Placement provider, named
		// as its report names its hypervisor, and claimed by no other.
		if drift.Status != hostcheck.Pass || rep.Facts.HypervisorHostname != h.Hypervisor {
			t.Errorf("hosts audit: %s (hypervisor %s): CONFIG-DRIFT %s %s; its report names hypervisor %s",
				h.Host, h.Hypervisor, drift.Status, drift.Message, rep.Facts.HypervisorHostname)
		}
		if c := findCheck(h.Report, "HOST-REPORT"); c.Status != "absent" {
			t.Errorf("hosts audit: %s: %s %s", h.Host, c.Status, c.Message)
		}
		matched[h.Host] = true
	}
	if !matched[hostA.Name] || !matched[hostB.Name] {
		t.Errorf("hosts audit matched the reports of %v; want %s and %s\n%s", matched, hostA.Name, hostB.Name, stdout.String())
	}
	t.Logf("ansible-playbook on %s (local) and %s (ssh %s): %.1fs; hosts audit of %d hosts with both reports: %.1fs; in all %.1fs",
		hostA.Name, hostB.Name, hostBAddr, playTime.Seconds(), len(res.Hosts), time.Since(t1).Seconds(), time.Since(start).Seconds())
}

// checkArgsOf is `host check` as hostCheckOpts points it at compute A's
// files, in command-line form: the playbook's vtpmctl_check_args.
func checkArgsOf(o *hostCheckOptions) []string {
	var args []string
	for _, c := range o.NovaConf {
		args = append(args, "--nova-conf", c)
	}
	for _, f := range [][2]string{{"--qemu-conf", o.QemuConf}, {"--swtpm-state-dir", o.StateDir}, {"--root", o.Root}, {"--libvirt-uri", o.LibvirtURI}} {
		if f[1] != "" {
			args = append(args, f[0], f[1])
		}
	}
	return args
}

// hostBVars reach host B as root over ssh with what second-compute.sh made
// for the cloud's nova-compute: its client key and the known_hosts that
// pins B's host key. B runs in the chroot: its python3 is the chroot's,
// and /tmp is B's own.
func hostBVars(t *testing.T) map[string]any {
	t.Helper()
	keys := devcloudtest.InRoot("/etc/ssh/vtpmctl-host-b")
	args := hostCheckArgs("nova-b.conf")
	if !slices.Equal(args[:4], []string{"host", "check", "-f", "json"}) {
		t.Fatalf("hostCheckArgs no longer starts with host check -f json: %q", args)
	}
	return map[string]any{
		"ansible_host":                 hostBAddr,
		"ansible_user":                 "root",
		"ansible_ssh_private_key_file": filepath.Join(keys, "id_ed25519"),
		"ansible_ssh_common_args": fmt.Sprintf("-o UserKnownHostsFile=%s -o StrictHostKeyChecking=yes -o IdentitiesOnly=yes -o BatchMode=yes",
			filepath.Join(keys, "known_hosts")),
		"ansible_python_interpreter": "/usr/bin/python3",
		"ansible_remote_tmp":         "/tmp",
		"vtpmctl_check_args":         args[4:],
	}
}

func writeInventory(t *testing.T, path string, hosts map[string]map[string]any) {
	t.Helper()
	inv := map[string]any{"compute": map[string]any{"hosts": hosts}}
	data, err := yaml.Marshal(inv)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// ansibleRunner runs Ansible with this test's inventory and a config of
// its own: nothing from the machine's /etc/ansible or root's home, and no
// ssh master left running once the play is over (ControlPersist).
type ansibleRunner struct{ dir, inventory, cfg string }

func newAnsibleRunner(t *testing.T, dir, inventory string) ansibleRunner {
	t.Helper()
	a := ansibleRunner{dir: dir, inventory: inventory, cfg: filepath.Join(dir, "ansible.cfg")}
	cfg := "[defaults]\nnocolor = true\nlocalhost_warning = false\n[ssh_connection]\nssh_args = -o ControlMaster=no\npipelining = true\n"
	if err := os.WriteFile(a.cfg, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return a
}

func (a ansibleRunner) cmd(ctx context.Context, bin string, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, bin, append([]string{"-i", a.inventory}, args...)...)
	// HOME: Ansible's own ~/.ansible (its temp files, on A too) stays here
	c.Env = append(os.Environ(), "ANSIBLE_CONFIG="+a.cfg, "HOME="+filepath.Join(a.dir, "home"))
	c.Dir = a.dir
	return c
}

// checkRecap: every host of the play ran its tasks, none failed or was
// unreachable.
func checkRecap(t *testing.T, out []byte, hosts ...string) {
	t.Helper()
	re := regexp.MustCompile(`(?m)^(\S+)\s*:\s*ok=(\d+)\s+changed=\d+\s+unreachable=(\d+)\s+failed=(\d+)\s+skipped=(\d+)`)
	seen := map[string]bool{}
	for _, m := range re.FindAllStringSubmatch(string(out), -1) {
		seen[m[1]] = true
		if m[2] == "0" || m[3] != "0" || m[4] != "0" || m[5] != "0" {
			t.Errorf("ansible-playbook: %s: %s", m[1], strings.TrimSpace(m[0]))
		}
	}
	for _, h := range hosts {
		if !seen[h] {
			t.Errorf("ansible-playbook: no recap for %s\n%s", h, out)
		}
	}
}

// checkFleetJUnit: `hosts report` ran on the control node over both
// collected reports.
func checkFleetJUnit(t *testing.T, path string, hosts ...string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var j struct {
		Name   string `xml:"name,attr"`
		Suites []struct {
			Name  string `xml:"name,attr"`
			Tests int    `xml:"tests,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &j); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var got []string
	for _, s := range j.Suites {
		if s.Tests > 0 {
			got = append(got, s.Name)
		}
	}
	var want []string
	for _, h := range hosts {
		want = append(want, "host "+h)
	}
	slices.Sort(got)
	slices.Sort(want)
	if j.Name != "vtpmctl hosts report" || !slices.Equal(got, want) {
		t.Errorf("%s: %q with suites %v, want vtpmctl hosts report with %v", path, j.Name, got, want)
	}
}

// copyExecutable copies this test binary to path.
func copyExecutable(t *testing.T, path string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, bin, 0o755); err != nil {
		t.Fatal(err)
	}
}
