//go:build integration

package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/blockstorage/v3/volumes"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/flavors"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"

	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/devcloudtest"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// interruptCase is one write command: reset puts the cloud back where
// the command starts, converged says whether the command's end state is
// there (nil: it is).
type interruptCase struct {
	name      string
	args      []string
	reset     func(t *testing.T)
	converged func(t *testing.T) error
}

// TestIntegrationInterruptedWrites: every write command is stopped at
// each of its write requests, by SIGINT and by SIGKILL, once with that
// request dropped (never sent) and once sent with its answer lost; then
// run again to its end. The rerun must converge (the end state of an
// uninterrupted run: nothing lost) and the writes of both runs together
// must be exactly those of an uninterrupted run (no duplicate). The
// process is a copy of this test binary named vtpmctl (testscript.Main),
// the requests go through the fault proxy, where the interruption sits.
// Release-independent: one release runs it.
func TestIntegrationInterruptedWrites(t *testing.T) {
	devcloudtest.Only(t, "2026.1")
	ctx := context.Background()
	imageClient, acompute, dcompute := testClients(t)
	vc := volumeClient(t, "devcloud-admin")
	bin := filepath.Join(t.TempDir(), "vtpmctl")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(self); err != nil || os.WriteFile(bin, b, 0o700) != nil {
		t.Fatalf("copying the CLI: %v", err)
	}
	ups := liveOrigins(t)

	flv := devcloudtest.Unique("intr-flv")
	flvID := devcloudtest.CreateFlavor(t, acompute, flv, nil)
	img := devcloudtest.Unique("intr-img")
	imgID := devcloudtest.CreateImage(t, imageClient, img, nil)
	volID := createBootVolume(t, vc, imgID)
	vol, err := volumes.Get(ctx, vc, volID).Extract()
	if err != nil {
		t.Fatal(err)
	}
	planFlv := devcloudtest.Unique("intr-plan-flv")
	plan := filepath.Join(t.TempDir(), "plan.yaml")
	planYAML := fmt.Sprintf("version: 1\nimages:\n  - name: %s\n    tpm_version: \"2.0\"\n    tpm_model: tpm-crb\nflavors:\n  - name: %s\n    vcpus: 1\n    ram: 64\n    disk: 1\n    tpm_version: \"2.0\"\n    tpm_model: tpm-crb\nvms: []\n", img, planFlv)
	if err := os.WriteFile(plan, []byte(planYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	flavorsNamed := func(name string) []flavors.Flavor {
		pages, err := flavors.ListDetail(acompute, flavors.ListOpts{AccessType: flavors.AllAccess}).AllPages(ctx)
		if err != nil {
			t.Fatal(err)
		}
		all, _ := flavors.ExtractFlavors(pages)
		var out []flavors.Flavor
		for _, f := range all {
			if f.Name == name {
				out = append(out, f)
			}
		}
		return out
	}
	t.Cleanup(func() {
		for _, f := range flavorsNamed(planFlv) {
			flavors.Delete(context.Background(), acompute, f.ID)
		}
	})
	unset := func(t *testing.T, args ...string) {
		if out, errs, code := runCLI(t, append([]string{"--os-cloud", "devcloud-admin"}, args...)...); code != 0 {
			t.Fatalf("reset %v: exit %d\n%s%s", args, code, out, errs)
		}
	}
	specs := func(id string) map[string]string {
		s, err := flavors.ListExtraSpecs(ctx, acompute, id).Extract()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	imageProps := func() map[string]any {
		i, err := images.Get(ctx, imageClient, imgID).Extract()
		if err != nil {
			t.Fatal(err)
		}
		return i.Properties
	}
	want := func(got map[string]string, kv ...string) error {
		for i := 0; i < len(kv); i += 2 {
			if got[kv[i]] != kv[i+1] {
				return fmt.Errorf("%s=%q, want %q (all: %v)", kv[i], got[kv[i]], kv[i+1], got)
			}
		}
		return nil
	}
	strs := func(m map[string]any) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = fmt.Sprint(v)
		}
		return out
	}
	cases := []interruptCase{
		{"flavor set", []string{"flavor", "set", flv, "--tpm-version", "2.0", "--tpm-model", "tpm-crb"},
			func(t *testing.T) { unset(t, "flavor", "unset", flv) },
			func(t *testing.T) error {
				return want(specs(flvID), "hw:tpm_version", "2.0", "hw:tpm_model", "tpm-crb")
			}},
		{"image set", []string{"image", "set", img, "--windows"},
			func(t *testing.T) { unset(t, "image", "unset", img, "--windows") },
			func(t *testing.T) error {
				return want(strs(imageProps()), "hw_tpm_version", "2.0", "hw_tpm_model", "tpm-crb", "hw_firmware_type", "uefi", "os_distro", "windows")
			}},
		{"volume set", []string{"volume", "set", vol.Name, "--windows"},
			func(t *testing.T) { unset(t, "volume", "unset", vol.Name, "--windows") },
			func(t *testing.T) error {
				v, err := volumes.Get(ctx, vc, volID).Extract()
				if err != nil {
					return err
				}
				return want(v.VolumeImageMetadata, "hw_tpm_version", "2.0", "hw_tpm_model", "tpm-crb", "hw_firmware_type", "uefi")
			}},
		{"plan apply", []string{"plan", "apply", plan, "--yes"},
			func(t *testing.T) {
				for _, f := range flavorsNamed(planFlv) {
					flavors.Delete(ctx, acompute, f.ID)
				}
				unset(t, "image", "unset", img, "--windows")
			},
			func(t *testing.T) error {
				fs := flavorsNamed(planFlv)
				if len(fs) != 1 {
					return fmt.Errorf("%d flavors named %s, want 1", len(fs), planFlv)
				}
				if err := want(specs(fs[0].ID), "hw:tpm_version", "2.0", "hw:tpm_model", "tpm-crb"); err != nil {
					return err
				}
				return want(strs(imageProps()), "hw_tpm_version", "2.0", "hw_tpm_model", "tpm-crb")
			}},
	}
	cases = append(cases, protectCase(t, acompute, dcompute, imgID))
	var rows []string
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.reset(t)
			clean := runChild(t, bin, ups, c.args, nil)
			if clean.code != 0 || c.converged(t) != nil {
				t.Fatalf("uninterrupted: exit %d, %v\n%s", clean.code, c.converged(t), clean.stderr)
			}
			w := len(clean.writes)
			for k := 1; k <= w; k++ {
				for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
					for _, drop := range []bool{true, false} {
						c.reset(t)
						first := runChild(t, bin, ups, c.args, &interruptAt{n: k, sig: sig, drop: drop})
						again := runChild(t, bin, ups, c.args, nil)
						kept := undoneByRollback(first.writes)
						total := len(kept) + len(again.writes)
						err := c.converged(t)
						how := map[bool]string{true: "dropped", false: "sent, answer lost"}[drop]
						rows = append(rows, fmt.Sprintf("| %s | write %d of %d | %s | %s | exit %d, then %d | %d (%d rolled back) + %d = %d of %d | %v |",
							c.name, k, w, sig, how, first.code, again.code, len(kept), len(first.writes)-len(kept), len(again.writes), total, w, err == nil))
						if err != nil || again.code != 0 || total != w {
							t.Errorf("%s at write %d (%s, %s): rerun exit %d, writes %v then %v (uninterrupted: %v), converged: %v\n%s",
								sig, k, how, c.name, again.code, first.writes, again.writes, clean.writes, err, again.stderr)
						}
					}
				}
			}
		})
	}
	t.Logf("\n| command | interrupted at | signal | the request | exits | writes that stayed (first run) + rerun = total, of the uninterrupted run's | converged |\n|---|---|---|---|---|---|---|\n%s", strings.Join(rows, "\n"))
}

// undoneByRollback is the writes that stayed: a flavor create is all or
// nothing, so an interrupted one deletes what it created (DELETE
// /flavors/ID after POST /flavors and its extra specs), and those three
// writes left nothing behind.
func undoneByRollback(writes []string) []string {
	gone := map[string]bool{}
	for _, w := range writes {
		if id, ok := strings.CutPrefix(w, "DELETE /v2.1/flavors/"); ok {
			gone[id] = true
		}
	}
	var out []string
	creates := len(gone)
	for _, w := range writes {
		switch {
		case strings.HasPrefix(w, "DELETE /v2.1/flavors/"):
		case w == "POST /v2.1/flavors" && creates > 0:
			creates--
		case strings.HasPrefix(w, "POST /v2.1/flavors/") && gone[strings.Split(strings.TrimPrefix(w, "POST /v2.1/flavors/"), "/")[0]]:
		default:
			out = append(out, w)
		}
	}
	return out
}

// interruptAt: at the n-th write request, signal the child and wait for
// it to end; then drop the request or let it through.
type interruptAt struct {
	n    int
	sig  syscall.Signal
	drop bool
}

type childRun struct {
	code   int
	stderr string
	writes []string // the write requests the cloud answered with success
}

// runChild runs the CLI through the fault proxy; in, when set, stops it.
func runChild(t *testing.T, bin string, ups []string, args []string, in *interruptAt) childRun {
	t.Helper()
	var cmd *exec.Cmd
	var seen atomic.Int32
	done := make(chan struct{})
	plan := fakecloud.FaultPlan{Kind: fakecloud.NoFault}
	if in != nil {
		plan.Before = func(r *http.Request) bool {
			if !isWrite(r) || int(seen.Add(1)) != in.n {
				return false
			}
			cmd.Process.Signal(in.sig)
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Errorf("the CLI did not end within 30 s of %s", in.sig)
			}
			return in.drop
		}
	}
	px, clouds := liveProxy(t, ups, plan)
	defer px.Close()
	var errb strings.Builder
	cmd = exec.Command(bin, append([]string{"--os-cloud", "devcloud-admin", "--timeout", "30s"}, args...)...)
	cmd.Env = append(os.Environ(), "OS_CLIENT_CONFIG_FILE="+clouds)
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	close(done)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode() // -1: killed by a signal
	} else if err != nil {
		t.Fatal(err)
	}
	// a request let through after the child died is answered after Wait
	px.Drain(time.Minute)
	var writes []string
	for _, e := range px.Exchanges() {
		if e.Method != http.MethodGet && e.Method != http.MethodHead && !strings.HasSuffix(e.Path, "/auth/tokens") && e.Status < 400 {
			writes = append(writes, e.Method+" "+e.Path)
		}
	}
	return childRun{code: code, stderr: errb.String(), writes: writes}
}

func isWrite(r *http.Request) bool {
	return r.Method != http.MethodGet && r.Method != http.MethodHead && !strings.HasSuffix(r.URL.Path, "/auth/tokens")
}

// protectCase: secrets protect on a user-mode vTPM guest's secret (one
// write: Nova's consumer); reset removes the consumer, and so does the
// cleanup before Nova deletes the guest (a protected guest's delete
// fails from API 1.2).
func protectCase(t *testing.T, acompute, dcompute *gophercloud.ServiceClient, img string) interruptCase {
	ctx := context.Background()
	demo := devcloudtest.Connect(t, "devcloud-demo")
	km, err := demo.KeyManager()
	if err != nil {
		t.Fatal(err)
	}
	guest := bootModeGuest(t, acompute, dcompute, img, "intr-protect", "user")
	at11 := &gophercloud.RequestOpts{MoreHeaders: map[string]string{"OpenStack-API-Version": "key-manager 1.1"}, OkCodes: []int{200}}
	consumers := func() (string, int) {
		var body struct {
			Secrets []struct {
				Ref       string `json:"secret_ref"`
				Consumers []struct {
					Service, ResourceType, ResourceID string
				} `json:"consumers"`
			} `json:"secrets"`
		}
		u := km.ServiceURL("secrets") + "?name=" + url.QueryEscape(vtpmsecret.NamePrefix+guest)
		if _, err := km.Get(ctx, u, &body, at11); err != nil || len(body.Secrets) != 1 {
			t.Fatalf("the guest's secret: %v, %d listed", err, len(body.Secrets))
		}
		return body.Secrets[0].Ref, len(body.Secrets[0].Consumers)
	}
	release := func() {
		ref, n := consumers()
		if n == 0 {
			return
		}
		c := vtpmsecret.NovaConsumer(guest)
		opts := &gophercloud.RequestOpts{MoreHeaders: at11.MoreHeaders, OkCodes: []int{200, 204},
			JSONBody: map[string]string{"service": c.Service, "resource_type": c.ResourceType, "resource_id": c.ResourceID}}
		if _, err := km.Request(ctx, "DELETE", ref+"/consumers", opts); err != nil {
			t.Fatalf("removing the consumer: %v", err)
		}
	}
	t.Cleanup(release)
	return interruptCase{"secrets protect", []string{"secrets", "protect", "--project", "demo", "--server", guest},
		func(t *testing.T) { release() },
		func(t *testing.T) error {
			if _, n := consumers(); n != 1 {
				return fmt.Errorf("%d consumers on the guest's secret, want Nova's one", n)
			}
			return nil
		}}
}
