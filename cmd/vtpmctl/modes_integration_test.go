//go:build integration

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/flavors"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/devcloudtest"
)

// TestIntegrationExtraSpecValidatorParity writes each vTPM extra spec at
// microversion 2.86, where Nova validates it, and compares Nova's answer
// (stored, or the 400's text) with nova.ValidateExtraSpec for the cloud's
// release. hw:tpm_secret_security is unknown before 2026.1.
func TestIntegrationExtraSpecValidatorParity(t *testing.T) {
	_, acompute, _ := testClients(t)
	ctx := context.Background()
	rel := cloudRelease(t)
	c := *acompute
	c.Microversion = "2.86"
	flv := devcloudtest.CreateFlavor(t, acompute, devcloudtest.Unique("validator"), nil)
	cases := [][2]string{
		{"hw:tpm_version", "2.0"}, {"hw:tpm_version", "1.2"}, {"hw:tpm_version", "3.0"}, {"hw:tpm_version", "2"},
		{"hw:tpm_model", "tpm-crb"}, {"hw:tpm_model", "tpm-tis"}, {"hw:tpm_model", "foo"}, {"hw:tpm_model", "TPM-CRB"},
		{"hw:tpm_secret_security", "user"}, {"hw:tpm_secret_security", "host"}, {"hw:tpm_secret_security", "deployment"},
		{"hw:tpm_secret_security", "vault"},
	}
	var rows []string
	for _, kv := range cases {
		want := "stored"
		if r := nova.ValidateExtraSpec(kv[0], kv[1], rel); r != nil {
			want = fmt.Sprintf("HTTP %d: %s", r.HTTPStatus, r.Message)
		}
		got := "stored"
		_, err := flavors.CreateExtraSpecs(ctx, &c, flv, flavors.ExtraSpecsOpts{kv[0]: kv[1]}).Extract()
		if err != nil {
			var code gophercloud.ErrUnexpectedResponseCode
			if !asCode(err, &code) {
				t.Fatalf("%s=%s: %v", kv[0], kv[1], err)
			}
			got = fmt.Sprintf("HTTP %d: %s", code.Actual, badRequestMessage(code.Body))
		} else {
			flavors.DeleteExtraSpec(ctx, &c, flv, kv[0])
		}
		rows = append(rows, fmt.Sprintf("| %s=%s | %s | %s |", kv[0], kv[1], got, want))
		if got != want {
			t.Errorf("%s=%s: Nova %q, vtpmctl %q", kv[0], kv[1], got, want)
		}
	}
	t.Logf("\n| extra spec at 2.86 | Nova (%s) | vtpmctl |\n|---|---|---|\n%s", devcloudtest.Release(), strings.Join(rows, "\n"))
}

// modeGuest is a vTPM guest booted with one secret security mode ("" on
// releases without modes).
type modeGuest struct {
	mode, id, flavor string
}

// TestIntegrationOperationsParity tries every operation Nova refuses for
// vTPM guests, for real, on a guest of each secret security mode the
// release has, and compares Nova's answer with what `check` lists in
// unsupported_operations for that flavor.
func TestIntegrationOperationsParity(t *testing.T) {
	imageClient, acompute, dcompute := testClients(t)
	ctx := context.Background()
	rel := cloudRelease(t)
	admin := devcloudtest.Connect(t, "devcloud-admin")
	acomputeOps, _ := admin.Compute()
	acomputeOps.Microversion = "2.30"
	imgName := devcloudtest.Unique("ops-img")
	img := devcloudtest.CreateImage(t, imageClient, imgName, nil)
	modes := []string{""}
	if rel.HasSecretSecurity() {
		modes = []string{"user", "host", "deployment"}
	}
	flavorOf, flavorIDOf := map[string]string{}, map[string]string{}
	for _, m := range modes {
		specs := map[string]string{"hw:tpm_version": "2.0"}
		if m != "" {
			specs["hw:tpm_secret_security"] = m
		}
		name := devcloudtest.Unique("ops-flv-" + m)
		flavorIDOf[m] = devcloudtest.CreateFlavor(t, acompute, name, specs)
		flavorOf[m] = name
	}
	guests := make([]modeGuest, len(modes))
	// Deleted together at the end (one teardown's wait, not one per guest).
	t.Cleanup(func() {
		var ids []string
		for _, g := range guests {
			if g.id != "" {
				ids = append(ids, g.id)
			}
		}
		deleteAllAndWait(dcompute, ids...)
	})
	var wg sync.WaitGroup
	for i, m := range modes {
		wg.Add(1)
		go func(i int, m string) {
			defer wg.Done()
			fid := flavorIDOf[m]
			s, err := servers.Create(ctx, dcompute, servers.CreateOpts{Name: devcloudtest.Unique("ops-" + m), ImageRef: img, FlavorRef: fid,
				Networks: "none", AvailabilityZone: "libvirt"}, nil).Extract()
			if err != nil {
				t.Errorf("boot %s: %v", m, err)
				return
			}
			guests[i] = modeGuest{mode: m, id: s.ID, flavor: fid}
		}(i, m)
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	for _, g := range guests {
		waitActive(t, dcompute, g.id)
	}

	var rows []string
	for _, g := range guests {
		predicted := map[string]string{}
		for op, msg := range predictOps(t, imgName, flavorOf[g.mode]) {
			predicted[op] = strings.ReplaceAll(msg, "<server-uuid>", g.id)
		}
		tries := map[string]struct {
			c    *gophercloud.ServiceClient
			body map[string]any
		}{
			"rebuild":        {dcompute, map[string]any{"rebuild": map[string]any{"imageRef": img}}},
			"shelve":         {dcompute, map[string]any{"shelve": nil}},
			"rescue":         {dcompute, map[string]any{"rescue": map[string]any{}}},
			"evacuate":       {acomputeOps, map[string]any{"evacuate": map[string]any{}}},
			"live-migration": {acomputeOps, map[string]any{"os-migrateLive": map[string]any{"host": nil, "block_migration": "auto"}}},
		}
		if rel.HasSecretSecurity() {
			other := "deployment"
			if g.mode == "deployment" {
				other = "user"
			}
			tries["resize-across-deployment"] = struct {
				c    *gophercloud.ServiceClient
				body map[string]any
			}{dcompute, map[string]any{"resize": map[string]any{"flavorRef": flavorIDOf[other]}}}
		}
		var names []string
		for n := range tries {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, op := range names {
			tr := tries[op]
			got := action(t, tr.c, g.id, tr.body)
			want, refused := predicted[op]
			if !refused {
				want = "accepted"
			}
			gotText := got.message
			switch {
			case got.status < 400:
				gotText = "accepted"
			case op == "live-migration" && strings.HasPrefix(got.message, "No valid host was found."):
				// past the vTPM gate; the scheduler (called synchronously
				// for a live migration) found no second libvirt host
				gotText = "accepted"
			}
			rows = append(rows, fmt.Sprintf("| %s | %s | HTTP %d: %s | %s |", modeName(g.mode), op, got.status, got.message, want))
			if gotText != want {
				t.Errorf("%s mode, %s: Nova HTTP %d %q, check %q", modeName(g.mode), op, got.status, got.message, want)
			}
			if got.status < 400 {
				waitSettled(t, dcompute, g.id)
			}
		}
	}
	t.Logf("\n| mode | operation | Nova (%s) | vtpmctl check |\n|---|---|---|---|\n%s", devcloudtest.Release(), strings.Join(rows, "\n"))
}

func modeName(m string) string {
	if m == "" {
		return "(none: legacy, user)"
	}
	return m
}

type actionResult struct {
	status  int
	message string
}

// action posts a server action and returns Nova's status and message.
func action(t *testing.T, c *gophercloud.ServiceClient, id string, body map[string]any) actionResult {
	t.Helper()
	resp, err := c.Post(context.Background(), c.ServiceURL("servers", id, "action"), body, nil, &gophercloud.RequestOpts{OkCodes: []int{200, 202, 204}})
	if err == nil {
		return actionResult{status: resp.StatusCode}
	}
	var code gophercloud.ErrUnexpectedResponseCode
	if !asCode(err, &code) {
		t.Fatalf("action %v: %v", body, err)
	}
	return actionResult{status: code.Actual, message: faultMessage(code.Body)}
}

// predictOps is check's operation_messages for the pair: the operations
// it says Nova refuses, with Nova's text.
func predictOps(t *testing.T, image, flavor string) map[string]string {
	t.Helper()
	raw := runCheckJSON(t, image, flavor)
	var out struct {
		Ops  []string          `json:"unsupported_operations"`
		Msgs map[string]string `json:"operation_messages"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("check JSON: %v", err)
	}
	if len(out.Ops) != len(out.Msgs) {
		t.Errorf("unsupported_operations %v and operation_messages %v disagree", out.Ops, out.Msgs)
	}
	return out.Msgs
}

// waitSettled waits for an accepted action (a live migration with no
// other host to go to) to end, so the next one is not refused for a
// task state.
func waitSettled(t *testing.T, c *gophercloud.ServiceClient, id string) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); {
		var s struct {
			Server struct {
				Status    string `json:"status"`
				TaskState string `json:"OS-EXT-STS:task_state"`
			} `json:"server"`
		}
		if _, err := c.Get(context.Background(), c.ServiceURL("servers", id), &s, nil); err != nil {
			t.Fatal(err)
		}
		if s.Server.TaskState == "" && s.Server.Status != "MIGRATING" {
			return
		}
		sleep(t)
	}
	t.Fatalf("server %s did not settle", id)
}

func asCode(err error, code *gophercloud.ErrUnexpectedResponseCode) bool { return errors.As(err, code) }

// faultMessage reads Nova's error body ({"conflictingRequest": {"message":
// …}}, {"badRequest": …}, …) whatever its key.
func faultMessage(body []byte) string {
	var m map[string]struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &m) == nil {
		for _, v := range m {
			if v.Message != "" {
				return v.Message
			}
		}
	}
	return strings.TrimSpace(string(body))
}

// sleep is the poll interval of the waits here: short, as a server's state
// changes within seconds and each poll is one GET.
func sleep(*testing.T) { time.Sleep(500 * time.Millisecond) }

// TestIntegrationSchedulingParity: a host that lacks a trait the request
// needs gets no guest. The fake compute is given the traits of a host
// with TPM 2.0 and the TIS model only, as a stale or partial host would
// report; an image asking for CRB then finds no valid host from 2024.2
// (the model trait) and boots on Zed. check's required_traits must say
// the same.
func TestIntegrationSchedulingParity(t *testing.T) {
	imageClient, acompute, dcompute := testClients(t)
	rel := cloudRelease(t)
	have := []string{"COMPUTE_SECURITY_TPM_2_0"}
	if rel.RequiresModelTrait() {
		have = append(have, "COMPUTE_SECURITY_TPM_TIS")
	}
	if rel.HasSecretSecurity() {
		have = append(have, "COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER")
	}
	placement, fakeRP, _ := fakeProvider(t)
	old := setTraits(t, placement, fakeRP, func(ts []string) []string { return append(ts, have...) })
	t.Cleanup(func() { setTraits(t, placement, fakeRP, func([]string) []string { return old }) })
	flv := devcloudtest.Unique("sched-flv")
	flvID := devcloudtest.CreateFlavor(t, acompute, flv, nil)
	for _, model := range []string{"tpm-tis", "tpm-crb"} {
		img := devcloudtest.Unique("sched-img-" + model)
		imgID := devcloudtest.CreateImage(t, imageClient, img, map[string]string{"hw_tpm_version": "2.0", "hw_tpm_model": model})
		var pred struct {
			Required []string `json:"required_traits"`
		}
		if err := json.Unmarshal(runCheckJSON(t, img, flv), &pred); err != nil {
			t.Fatal(err)
		}
		fits := true
		for _, tr := range pred.Required {
			fits = fits && (contains(have, tr) || contains(old, tr))
		}
		got := bootIn(t, dcompute, imgID, flvID, "fake")
		t.Logf("%s on a host with %v: Nova %s; check requires %v", model, have, got, pred.Required)
		if fits != (got == "ACTIVE") || (!fits && !strings.HasPrefix(got, "ERROR: No valid host was found.")) {
			t.Errorf("%s: Nova %s, but check's required traits %v fit=%v", model, got, pred.Required, fits)
		}
	}
}

// TestIntegrationModeNotOffered: what Nova 2026.1+ really does when a
// mode leaves [libvirt] supported_tpm_secret_security. Its driver only ever
// adds the mode traits (_get_tpm_traits sets True for listed modes, never
// False), so the removed mode's trait stays in Placement and guests of that
// mode keep landing and booting there; host check predicts the config's
// traits and the fleet audit flags the stale one. Once the trait is
// removed by hand, a deployment-mode flavor finds no valid host, as
// check's required traits say.
func TestIntegrationModeNotOffered(t *testing.T) {
	since(t, nova.Gazpacho)
	h := newHarness(t)
	imageClient, acompute, dcompute := testClients(t)
	ctx := context.Background()
	const dep = "COMPUTE_SECURITY_TPM_SECRET_SECURITY_DEPLOYMENT"
	devcloudtest.RestartCompute(t, "--secret-security", "user,host")
	t.Cleanup(func() { devcloudtest.RestartCompute(t, "--secret-security", "default") })

	dir := t.TempDir()
	r := h.run(func(streams *IOStreams) error { return runHostCheck(ctx, hostCheckOpts(streams, h.global(""), "")) })
	var rep hostcheck.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("host check: %v\n%s", err, r.stderr)
	}
	os.WriteFile(filepath.Join(dir, "devcloud.json"), []byte(r.stdout), 0o644)
	if contains(rep.Traits, dep) || !contains(rep.Traits, "COMPUTE_SECURITY_TPM_SECRET_SECURITY_HOST") {
		t.Errorf("host check with user,host predicts %v", rep.Traits)
	}
	placement, _, fleet := fakeProvider(t)
	var rp string
	var placed []string
	for _, f := range fleet {
		if f.Host == "devcloud" {
			rp, placed = f.RPUUID, f.Traits
		}
	}
	if !contains(placed, dep) {
		t.Fatalf("Nova removed %s after all (%v): the model of stale mode traits is wrong", dep, placed)
	}
	audit := h.run(func(streams *IOStreams) error {
		return runHostsAudit(ctx, &hostsOptions{IO: streams, Global: h.global("devcloud-admin"), Dir: dir})
	})
	if audit.code != 1 || !strings.Contains(audit.stdout, "Placement has "+dep+" that the config does not give") {
		t.Errorf("hosts audit must flag the stale trait: exit %d\n%s", audit.code, audit.stdout)
	}

	img := devcloudtest.Unique("mode-img")
	imgID := devcloudtest.CreateImage(t, imageClient, img, nil)
	flv := devcloudtest.Unique("mode-flv")
	flvID := devcloudtest.CreateFlavor(t, acompute, flv, map[string]string{"hw:tpm_version": "2.0", "hw:tpm_secret_security": "deployment"})
	var pred struct {
		Required []string `json:"required_traits"`
	}
	if err := json.Unmarshal(runCheckJSON(t, img, flv), &pred); err != nil {
		t.Fatal(err)
	}
	if !contains(pred.Required, dep) {
		t.Errorf("check requires %v", pred.Required)
	}
	if got := bootIn(t, dcompute, imgID, flvID, "libvirt"); got != "ACTIVE" {
		t.Errorf("with the stale trait Nova still places deployment mode here: %s", got)
	}
	old := setTraits(t, placement, rp, func(ts []string) []string {
		var out []string
		for _, tr := range ts {
			if tr != dep {
				out = append(out, tr)
			}
		}
		return out
	})
	t.Cleanup(func() { setTraits(t, placement, rp, func([]string) []string { return old }) })
	if got := bootIn(t, dcompute, imgID, flvID, "libvirt"); !strings.HasPrefix(got, "ERROR: No valid host was found.") {
		t.Errorf("deployment mode on a host without its trait: Nova %s", got)
	}
}

// bootIn boots in an availability zone and returns "ACTIVE" or "ERROR: fault".
func bootIn(t *testing.T, c *gophercloud.ServiceClient, imageID, flavorID, az string) string {
	t.Helper()
	s, err := servers.Create(context.Background(), c, servers.CreateOpts{Name: devcloudtest.Unique("sched"), ImageRef: imageID, FlavorRef: flavorID,
		Networks: "none", AvailabilityZone: az}, nil).Extract()
	if err != nil {
		t.Fatalf("server create: %v", err)
	}
	t.Cleanup(func() { deleteAndWait(c, s.ID) })
	for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); {
		s, err = servers.Get(context.Background(), c, s.ID).Extract()
		if err != nil {
			t.Fatal(err)
		}
		switch s.Status {
		case "ACTIVE":
			return "ACTIVE"
		case "ERROR":
			return "ERROR: " + s.Fault.Message
		}
		sleep(t)
	}
	t.Fatalf("server %s still %s", s.ID, s.Status)
	return ""
}

func tpmTraits(ts []string) []string {
	var out []string
	for _, t := range ts {
		if strings.HasPrefix(t, "COMPUTE_SECURITY_TPM_") {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// TestIntegrationSecretCreateRoleParity: demo2 is a member without
// Barbican's creator role. Nova creates a user-mode guest's secret with
// the booting user's token, so whether Barbican lets a member create
// secrets (not before 2026.1) decides the boot; check, run as demo2, must
// say what Nova then does.
func TestIntegrationSecretCreateRoleParity(t *testing.T) {
	imageClient, acompute, _ := testClients(t)
	demo2 := devcloudtest.Connect(t, "devcloud-demo2")
	d2compute, _ := demo2.Compute()
	d2compute.Microversion = "2.37"
	img := devcloudtest.Unique("role-img")
	imgID := devcloudtest.CreateImage(t, imageClient, img, nil)
	flv := devcloudtest.Unique("role-flv")
	flvID := devcloudtest.CreateFlavor(t, acompute, flv, map[string]string{"hw:tpm_version": "2.0"})
	out, _ := checkAs(t, "devcloud-demo2", img, flv)
	var pred struct {
		Error string   `json:"error"`
		Notes []string `json:"notes"`
	}
	if err := json.Unmarshal(out.Bytes(), &pred); err != nil {
		t.Fatal(err)
	}
	got := bootIn(t, d2compute, imgID, flvID, "libvirt")
	want := "ACTIVE"
	if pred.Error != "" {
		want = "ERROR: " + pred.Error
	}
	// Nova names the instance; check cannot know its UUID beforehand.
	if i := strings.LastIndex(got, "instance "); i > 0 && strings.HasSuffix(want, "<server-uuid>.") {
		got = got[:i] + "instance <server-uuid>."
	}
	t.Logf("member without creator on %s: Nova %s; check %q %v", devcloudtest.Release(), got, pred.Error, pred.Notes)
	if got != want {
		t.Errorf("Nova %q, check %q", got, want)
	}
}

// TestIntegrationOwnerNova: on 2026.2, with every nova-compute new, the
// scheduler requires OWNER_NOVA; a host that lost it (traits edited by
// hand) gets no guest at all, and the fleet audit says so.
func TestIntegrationOwnerNova(t *testing.T) {
	since(t, nova.Hibiscus)
	h := newHarness(t)
	imageClient, acompute, dcompute := testClients(t)
	placement, fakeRP, _ := fakeProvider(t)
	old := setTraits(t, placement, fakeRP, func(ts []string) []string {
		var out []string
		for _, tr := range ts {
			if tr != "OWNER_NOVA" {
				out = append(out, tr)
			}
		}
		return out
	})
	t.Cleanup(func() { setTraits(t, placement, fakeRP, func([]string) []string { return old }) })
	if !contains(old, "OWNER_NOVA") {
		t.Fatalf("the 2026.2 fake compute does not report OWNER_NOVA: %v", old)
	}
	imgID := devcloudtest.CreateImage(t, imageClient, devcloudtest.Unique("owner-img"), nil)
	flvID := devcloudtest.CreateFlavor(t, acompute, devcloudtest.Unique("owner-flv"), nil)
	if got := bootIn(t, dcompute, imgID, flvID, "fake"); !strings.HasPrefix(got, "ERROR: No valid host was found.") {
		t.Errorf("a 2026.2 host without OWNER_NOVA: Nova %s", got)
	}
	r := h.run(func(streams *IOStreams) error {
		return runHostsAudit(context.Background(), &hostsOptions{IO: streams, Global: h.global("devcloud-admin")})
	})
	if r.code != 1 || !strings.Contains(r.stdout, "OWNER-NOVA") {
		t.Errorf("hosts audit: exit %d\n%s", r.code, r.stdout)
	}
}
