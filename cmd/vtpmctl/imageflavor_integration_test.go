//go:build integration

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/devcloudtest"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
)

// writeCounter records every request that could change something (all
// but GET/HEAD and token issue): the proof of "zero writes on rerun".
type writeCounter struct {
	next   http.RoundTripper
	mu     sync.Mutex
	writes []string
	all    []string // every request that left, for "never sent" proofs
}

func (w *writeCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	w.mu.Lock()
	w.all = append(w.all, r.Method+" "+r.URL.Path)
	w.mu.Unlock()
	if r.Method != http.MethodGet && r.Method != http.MethodHead && !strings.HasSuffix(r.URL.Path, "/auth/tokens") {
		w.mu.Lock()
		w.writes = append(w.writes, r.Method+" "+r.URL.Path)
		w.mu.Unlock()
	}
	return w.next.RoundTrip(r)
}

func (w *writeCounter) take() (writes, all []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	writes, all = w.writes, w.all
	w.writes, w.all = nil, nil
	return writes, all
}

// harness runs commands the way main does, with a counting transport.
type harness struct {
	t       *testing.T
	counter *writeCounter
	wrap    func(http.RoundTripper) http.RoundTripper
}

func newHarness(t *testing.T) *harness {
	devcloudtest.Require(t)
	h := &harness{t: t}
	h.wrap = func(next http.RoundTripper) http.RoundTripper {
		h.counter = &writeCounter{next: next}
		return h.counter
	}
	return h
}

func (h *harness) global(cloudName string) *globalOptions {
	return &globalOptions{Cloud: cloud.Options{Cloud: cloudName, Timeout: time.Minute, WrapTransport: h.wrap},
		Output: output.Options{Format: "json"}}
}

type runResult struct {
	code     int
	stdout   string
	stderr   string
	rows     []map[string]string
	writes   []string
	requests []string
}

func (h *harness) run(f func(streams *IOStreams) error) runResult {
	var out, errb bytes.Buffer
	streams := &IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb}
	code := exitCode(f(streams), &errb)
	r := runResult{code: code, stdout: out.String(), stderr: errb.String()}
	if h.counter != nil {
		r.writes, r.requests = h.counter.take()
	}
	// a write prints a vtpmctl.changes/1 document, its rows under
	// "changes"; any other output (an audit's, a failed run's) has none
	var doc struct {
		Schema  string              `json:"schema"`
		Changes []map[string]string `json:"changes"`
	}
	if json.Unmarshal(out.Bytes(), &doc) == nil && doc.Schema == nova.ChangesSchema {
		r.rows = doc.Changes
	}
	return r
}

func actions(rows []map[string]string) map[string]string {
	m := map[string]string{}
	for _, r := range rows {
		m[r["key"]] = r["action"]
	}
	return m
}

func TestIntegrationImageSetUnset(t *testing.T) {
	h := newHarness(t)
	demo := devcloudtest.Connect(t, "devcloud-demo")
	imageClient, _ := demo.Image()
	name := devcloudtest.Unique("win-img")
	id := devcloudtest.CreateImageAs(t, imageClient, name, "", "", map[string]string{"hw_disk_bus": "ide", "os_distro": "windows"})
	ctx := context.Background()

	set := func() runResult {
		return h.run(func(streams *IOStreams) error {
			return runImageChange(ctx, &imageChangeOptions{IO: streams, Global: h.global("devcloud-demo"), propertyChange: propertyChange{Set: true, Windows: true}, Images: []string{name}})
		})
	}
	r := set()
	if r.code != 0 {
		t.Fatalf("image set --windows: exit %d: %s", r.code, r.stderr)
	}
	want := map[string]string{"hw_tpm_version": "added", "hw_tpm_model": "added", "hw_firmware_type": "added", "hw_machine_type": "added",
		"os_secure_boot": "added", "os_type": "added", "os_distro": "unchanged", "hw_disk_bus": "replaced"}
	if got := actions(r.rows); !equalMaps(got, want) {
		t.Errorf("actions %v, want %v", got, want)
	}
	if len(r.writes) != 1 || !strings.HasPrefix(r.writes[0], "PATCH /v2/images/"+id) {
		t.Errorf("want exactly one PATCH of the image, got %v", r.writes)
	}
	if !strings.Contains(r.stderr, "hw_disk_bus ide -> sata") {
		t.Errorf("the disk bus change is not explained: %s", r.stderr)
	}
	img, err := images.Get(ctx, imageClient, id).Extract()
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"hw_tpm_version": "2.0", "hw_tpm_model": "tpm-crb", "hw_machine_type": "q35", "os_secure_boot": "required", "hw_disk_bus": "sata"} {
		if img.Properties[k] != v {
			t.Errorf("Glance has %s=%v, want %s", k, img.Properties[k], v)
		}
	}

	// The same command again writes nothing, and says so key by key.
	r = set()
	if r.code != 0 || len(r.writes) != 0 || len(r.rows) == 0 {
		t.Errorf("rerun: exit %d, writes %v (want 0 writes), change rows %v (want the profile's keys, unchanged)", r.code, r.writes, r.rows)
	}
	for k, a := range actions(r.rows) {
		if a != "unchanged" {
			t.Errorf("rerun: %s %s", k, a)
		}
	}

	unset := func() runResult {
		return h.run(func(streams *IOStreams) error {
			return runImageChange(ctx, &imageChangeOptions{IO: streams, Global: h.global("devcloud-demo"), Images: []string{id}, propertyChange: propertyChange{Windows: true}})
		})
	}
	r = unset()
	if r.code != 0 || len(r.writes) != 1 {
		t.Fatalf("unset: exit %d, writes %v: %s", r.code, r.writes, r.stderr)
	}
	img, _ = images.Get(ctx, imageClient, id).Extract()
	for _, k := range []string{"hw_tpm_version", "hw_tpm_model", "hw_firmware_type", "os_secure_boot"} {
		if _, still := img.Properties[k]; still {
			t.Errorf("%s still set after unset --windows", k)
		}
	}
	if r = unset(); r.code != 0 || len(r.writes) != 0 {
		t.Errorf("unset rerun: exit %d, writes %v", r.code, r.writes)
	}
}

func TestIntegrationImageForeignProject403(t *testing.T) {
	h := newHarness(t)
	admin := devcloudtest.Connect(t, "devcloud-admin")
	ks, _ := admin.Identity()
	pages, err := projects.List(ks, projects.ListOpts{Name: "other"}).AllPages(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ps, _ := projects.ExtractProjects(pages)
	if len(ps) != 1 {
		t.Fatalf("project other: %v", ps)
	}
	imageClient, _ := admin.Image()
	name := devcloudtest.Unique("foreign-img")
	id := devcloudtest.CreateImageAs(t, imageClient, name, images.ImageVisibilityPublic, ps[0].ID, nil)

	r := h.run(func(streams *IOStreams) error {
		return runImageChange(context.Background(), &imageChangeOptions{IO: streams, Global: h.global("devcloud-demo"), propertyChange: propertyChange{Set: true, Version: "2.0"}, Images: []string{name}})
	})
	if r.code != 1 {
		t.Fatalf("exit %d, want 1: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "belongs to project "+ps[0].ID) || !strings.Contains(r.stderr, "Glance 403") {
		t.Errorf("403 not explained: %s", r.stderr)
	}
	if a := actions(r.rows)["hw_tpm_version"]; a != "failed" {
		t.Errorf("row action %q, want failed", a)
	}
	img, _ := images.Get(context.Background(), imageClient, id).Extract()
	if _, set := img.Properties["hw_tpm_version"]; set {
		t.Errorf("foreign image was changed")
	}
}

func TestIntegrationFlavorLifecycle(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	name := devcloudtest.Unique("w1")
	admin := devcloudtest.Connect(t, "devcloud-admin")
	computeClient, _ := admin.Compute()
	t.Cleanup(func() {
		if f, err := compute.FindFlavor(ctx, computeClient, name); err == nil {
			compute.DeleteFlavor(ctx, computeClient, f.ID)
		}
	})
	create := func() runResult {
		return h.run(func(streams *IOStreams) error {
			return runFlavorCreate(ctx, &flavorOptions{IO: streams, Global: h.global("devcloud-admin"), Flavors: []string{name},
				VCPUs: 1, RAM: 64, Disk: 1, Request: nova.FlavorRequest{TPMVersion: "2.0", TPMModel: "tpm-tis"}})
		})
	}
	r := create()
	if r.code != 0 || len(r.writes) != 2 { // POST flavors, POST os-extra_specs (both keys at once)
		t.Fatalf("create: exit %d writes %v: %s", r.code, r.writes, r.stderr)
	}
	if r = create(); r.code != 0 || len(r.writes) != 0 {
		t.Errorf("create rerun: exit %d writes %v (want none)", r.code, r.writes)
	}
	r = h.run(func(streams *IOStreams) error {
		return runFlavorSet(ctx, &flavorOptions{IO: streams, Global: h.global("devcloud-admin"), Flavors: []string{name},
			Request: nova.FlavorRequest{TPMModel: "tpm-crb"}}, true)
	})
	if r.code != 0 || len(r.writes) != 1 || !strings.HasPrefix(r.writes[0], "PUT ") || !strings.HasSuffix(r.writes[0], "/os-extra_specs/hw:tpm_model") {
		t.Errorf("set model: exit %d, writes %v (want one single-key PUT)", r.code, r.writes)
	}
	// CRB with 1.2 is refused before any write.
	r = h.run(func(streams *IOStreams) error {
		return runFlavorSet(ctx, &flavorOptions{IO: streams, Global: h.global("devcloud-admin"), Flavors: []string{name},
			Request: nova.FlavorRequest{TPMVersion: "1.2"}}, true)
	})
	if r.code != 2 || len(r.writes) != 0 || !strings.Contains(r.stderr, "TPM model CRB is only valid with TPM version 2.0.") {
		t.Errorf("1.2 on a CRB flavor: exit %d writes %v: %s", r.code, r.writes, r.stderr)
	}
	// A member cannot write extra specs: Nova's 403, explained.
	r = h.run(func(streams *IOStreams) error {
		return runFlavorSet(ctx, &flavorOptions{IO: streams, Global: h.global("devcloud-demo"), Flavors: []string{name},
			Request: nova.FlavorRequest{TPMModel: "tpm-tis"}}, true)
	})
	if r.code != 1 || !strings.Contains(r.stderr, "admin role") {
		t.Errorf("demo flavor set: exit %d: %s", r.code, r.stderr)
	}
	r = h.run(func(streams *IOStreams) error {
		return runFlavorSet(ctx, &flavorOptions{IO: streams, Global: h.global("devcloud-admin"), Flavors: []string{name}}, false)
	})
	if r.code != 0 || len(r.writes) != 2 {
		t.Errorf("unset: exit %d writes %v (want two DELETEs)", r.code, r.writes)
	}
	f, err := compute.FindFlavor(ctx, computeClient, name)
	if err != nil || len(nova.VTPMKeys(f.ExtraSpecs, nova.IsVTPMFlavorKey)) != 0 {
		t.Errorf("after unset: %v %v", f.ExtraSpecs, err)
	}
}

// TestIntegrationFlavorCreateRollback puts a fault proxy in front of Nova
// that fails the extra-spec call: the flavor must not survive.
func TestIntegrationFlavorCreateRollback(t *testing.T) {
	devcloudtest.Require(t)
	const nova8774 = "http://127.0.0.1:8774"
	// the extra-spec call fails; every other request reaches Nova
	proxy, perr := fakecloud.StartProxy([]string{nova8774}, fakecloud.FaultPlan{Rate: 1, Kind: fakecloud.Fault500, Match: func(r *http.Request) bool {
		return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/os-extra_specs")
	}})
	if perr != nil {
		t.Fatal(perr)
	}
	defer proxy.Close()
	proxyURL, _ := url.Parse(proxy.URL(nova8774))
	h := &harness{t: t, wrap: func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if r.URL.Host == "127.0.0.1:8774" {
				r = r.Clone(r.Context())
				r.URL.Host = proxyURL.Host
			}
			return next.RoundTrip(r)
		})
	}}
	name := devcloudtest.Unique("w1-rollback")
	ctx := context.Background()
	r := h.run(func(streams *IOStreams) error {
		return runFlavorCreate(ctx, &flavorOptions{IO: streams, Global: h.global("devcloud-admin"), Flavors: []string{name},
			VCPUs: 1, RAM: 64, Disk: 1, Request: nova.FlavorRequest{TPMVersion: "2.0"}})
	})
	if r.code != 1 || !strings.Contains(r.stderr, "deleted again") {
		t.Fatalf("exit %d, want 1 with a rollback message: %s", r.code, r.stderr)
	}
	admin := devcloudtest.Connect(t, "devcloud-admin")
	computeClient, _ := admin.Compute()
	_, err := compute.FindFlavor(ctx, computeClient, name)
	var nf *nova.NotFoundError
	if !errors.As(err, &nf) {
		t.Errorf("the half-made flavor survived: %v", err)
		if f, err := compute.FindFlavor(ctx, computeClient, name); err == nil {
			compute.DeleteFlavor(ctx, computeClient, f.ID)
		}
	}
}

// TestIntegrationFlavorInUse: changing a flavor that servers use says how
// many, and that they keep their old specs.
func TestIntegrationFlavorInUse(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	imageClient, acompute, dcompute := testClients(t)
	imgID := devcloudtest.CreateImage(t, imageClient, devcloudtest.Unique("inuse-img"), nil)
	name := devcloudtest.Unique("inuse-flv")
	flvID := devcloudtest.CreateFlavor(t, acompute, name, map[string]string{"hw:tpm_version": "2.0"})
	s, err := servers.Create(ctx, dcompute, servers.CreateOpts{Name: devcloudtest.Unique("inuse"), ImageRef: imgID, FlavorRef: flvID,
		Networks: "none", AvailabilityZone: "fake"}, nil).Extract()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteAndWait(dcompute, s.ID) })
	r := h.run(func(streams *IOStreams) error {
		return runFlavorSet(ctx, &flavorOptions{IO: streams, Global: h.global("devcloud-admin"), Flavors: []string{name},
			Request: nova.FlavorRequest{TPMModel: "tpm-crb"}}, true)
	})
	if r.code != 0 || !strings.Contains(r.stderr, "1 server(s) use this flavor") || !strings.Contains(r.stderr, "only on resize") {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
