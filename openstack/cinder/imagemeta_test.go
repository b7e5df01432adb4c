package cinder

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// route is one request the strict server expects, and its answer.
type route struct {
	method, path, query string // path below /volume; query: every parameter, exactly ("" none)
	body                string // the exact JSON body (compared decoded), "" none
	status              int
	answer              string
}

// strictCinder is a strict fakecloud answering only the routes it is
// given, each once, all at ImageMetadataMicroversion, and failing the
// test on anything else or on a route never asked: unexpected requests
// are the bugs (a GET per volume, a write on a rerun) these tests exist
// to catch. Routes declared alike answer in the order given.
func strictCinder(t *testing.T, routes ...route) *gophercloud.ServiceClient {
	t.Helper()
	c := fakecloud.New(t)
	var decls []string
	answers := map[string][]http.HandlerFunc{}
	for _, rt := range routes {
		decl := fmt.Sprintf("%s /volume%s", rt.method, rt.path)
		if rt.query != "" {
			decl += "?" + rt.query
		}
		decl += " [volume " + ImageMetadataMicroversion + "] " + rt.body
		if answers[decl] == nil {
			decls = append(decls, decl)
		}
		noBody := rt.body == ""
		answers[decl] = append(answers[decl], func(w http.ResponseWriter, r *http.Request) {
			if b, _ := io.ReadAll(r.Body); noBody && len(b) > 0 {
				c.Errorf("%s %s: body %s, want none", r.Method, r.URL.Path, b)
			}
			fakecloud.JSON(rt.status, rt.answer)(w, r)
		})
	}
	for _, d := range decls {
		c.HandleSeq(d, answers[d]...)
	}
	return c.ServiceClient("volume/v3/p1")
}

const vol1 = `{"id":"11111111-1111-1111-1111-111111111111","name":"win","status":"available","bootable":"true",
 "os-vol-tenant-attr:tenant_id":"p1","volume_image_metadata":{"image_id":"img1","hw_tpm_version":"2.0"},"attachments":[]}`

func TestGetVolumeDecodes(t *testing.T) {
	c := strictCinder(t, route{method: "GET", path: "/v3/p1/volumes/11111111-1111-1111-1111-111111111111", status: 200, answer: `{"volume":` + vol1 + `}`})
	v, err := GetVolume(context.Background(), c, "11111111-1111-1111-1111-111111111111")
	if err != nil {
		t.Fatal(err)
	}
	if v.Name != "win" || !bool(v.Bootable) || v.ProjectID != "p1" || v.ImageMetadata["hw_tpm_version"] != "2.0" {
		t.Errorf("decoded %+v", v)
	}
}

func TestFindVolumeByName(t *testing.T) {
	list := `{"volumes":[` + vol1 + `,` + strings.Replace(vol1, "11111111-1111-1111-1111-111111111111", "22222222-2222-2222-2222-222222222222", 1) + `]}`
	c := strictCinder(t,
		route{method: "GET", path: "/v3/p1/volumes/detail", query: "limit=1000&name=win", status: 200, answer: list},
		route{method: "GET", path: "/v3/p1/volumes/detail", query: "limit=1000&name=nope", status: 200, answer: `{"volumes":[]}`},
	)
	_, err := FindVolume(context.Background(), c, "win", false)
	var amb *nova.AmbiguousError
	if !errors.As(err, &amb) || len(amb.IDs) != 2 {
		t.Errorf("two volumes named win: %v, want an AmbiguousError naming both", err)
	}
	_, err = FindVolume(context.Background(), c, "nope", false)
	var nf *nova.NotFoundError
	if !errors.As(err, &nf) {
		t.Errorf("unknown name: %v, want NotFoundError", err)
	}
}

// TestApplyVolumePlans: one set for every added/replaced key, one unset
// per removed key, and nothing at all for a volume with no change.
func TestApplyVolumePlans(t *testing.T) {
	a, b := "11111111-1111-1111-1111-111111111111", "22222222-2222-2222-2222-222222222222"
	c := strictCinder(t,
		route{method: "POST", path: "/v3/p1/volumes/" + a + "/action", status: 200, answer: `{"metadata":{}}`,
			body: `{"os-set_image_metadata":{"metadata":{"hw_tpm_model":"tpm-crb","hw_tpm_version":"2.0"}}}`},
		route{method: "POST", path: "/v3/p1/volumes/" + a + "/action", status: 200, body: `{"os-unset_image_metadata":{"key":"hw_tpm_secret_security"}}`},
		route{method: "POST", path: "/v3/p1/volumes/" + a + "/action", status: 200, body: `{"os-unset_image_metadata":{"key":"os_type"}}`},
	)
	plans := []nova.ObjectPlan{
		{ID: a, Changes: []nova.Change{
			{Key: "hw_tpm_version", Old: "1.2", New: "2.0", Action: nova.Replaced},
			{Key: "hw_tpm_model", New: "tpm-crb", Action: nova.Added},
			{Key: "hw_tpm_secret_security", Old: "host", Action: nova.Removed},
			{Key: "os_type", Old: "windows", Action: nova.Removed},
			{Key: "hw_machine_type", Old: "q35", New: "q35", Action: nova.Unchanged}}},
		{ID: b, Changes: []nova.Change{{Key: "hw_tpm_version", Old: "2.0", New: "2.0", Action: nova.Unchanged}}},
	}
	ApplyVolumePlans(context.Background(), c, plans, []Volume{{ID: a}, {ID: b}})
	for _, p := range plans {
		if p.Err != nil {
			t.Errorf("%s: %v", p.ID, p.Err)
		}
	}
}

func TestApplyVolumePlans403(t *testing.T) {
	a := "11111111-1111-1111-1111-111111111111"
	c := strictCinder(t, route{method: "POST", path: "/v3/p1/volumes/" + a + "/action", status: 403, answer: `{"forbidden":{"message":"Policy doesn't allow"}}`,
		body: `{"os-set_image_metadata":{"metadata":{"hw_tpm_version":"2.0"}}}`})
	plans := []nova.ObjectPlan{{ID: a, Changes: []nova.Change{{Key: "hw_tpm_version", New: "2.0", Action: nova.Added}}}}
	ApplyVolumePlans(context.Background(), c, plans, []Volume{{ID: a, Name: "w", ProjectID: "p9"}})
	if plans[0].Err == nil || !strings.Contains(plans[0].Err.Error(), "project p9") {
		t.Errorf("403: %v, want the owning project named", plans[0].Err)
	}
}

// TestResolveVolumesSelectOneList: --select is one bootable list, never a
// GET per volume.
func TestResolveVolumesSelectOneList(t *testing.T) {
	list := `{"volumes":[` + vol1 + `,{"id":"33333333-3333-3333-3333-333333333333","name":"linux","bootable":"true","volume_image_metadata":{"image_id":"img2"}}]}`
	c := strictCinder(t, route{method: "GET", path: "/v3/p1/volumes/detail", query: "all_tenants=true&bootable=true&limit=1000", status: 200, answer: list})
	vols, err := ResolveVolumes(context.Background(), c, nil, map[string]string{"image_id": "img1"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(vols) != 1 || vols[0].Name != "win" {
		t.Errorf("selected %+v, want only win", vols)
	}
}

// TestApplyVolumePlansCancelled: after Ctrl-C no request is sent, and a
// plan that had changes must say so (Err), never pass as written; a plan
// with nothing to write has nothing to fail.
func TestApplyVolumePlansCancelled(t *testing.T) {
	a, b := "11111111-1111-1111-1111-111111111111", "22222222-2222-2222-2222-222222222222"
	c := strictCinder(t) // any request is a failure
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	plans := []nova.ObjectPlan{
		{ID: a, Changes: []nova.Change{{Key: "hw_tpm_version", New: "2.0", Action: nova.Added}}},
		{ID: b, Changes: []nova.Change{{Key: "hw_tpm_version", Old: "2.0", New: "2.0", Action: nova.Unchanged}}},
	}
	ApplyVolumePlans(ctx, c, plans, []Volume{{ID: a}, {ID: b}})
	if !errors.Is(plans[0].Err, context.Canceled) {
		t.Errorf("cancelled before writing: Err %v, want context.Canceled", plans[0].Err)
	}
	if plans[1].Err != nil {
		t.Errorf("nothing to write: Err %v", plans[1].Err)
	}
}

// TestApplyVolumePlansPartial: the set succeeds and the first unset fails,
// so Cinder holds the set keys: the error must say which keys were
// written and which were not. The next removal is still sent (each key
// is a request of its own).
func TestApplyVolumePlansPartial(t *testing.T) {
	a := "11111111-1111-1111-1111-111111111111"
	c := strictCinder(t,
		route{method: "POST", path: "/v3/p1/volumes/" + a + "/action", status: 200, answer: `{"metadata":{}}`,
			body: `{"os-set_image_metadata":{"metadata":{"hw_tpm_version":"2.0"}}}`},
		route{method: "POST", path: "/v3/p1/volumes/" + a + "/action", status: 500, answer: `{"computeFault":{"message":"boom"}}`,
			body: `{"os-unset_image_metadata":{"key":"hw_tpm_secret_security"}}`},
		route{method: "POST", path: "/v3/p1/volumes/" + a + "/action", status: 200, body: `{"os-unset_image_metadata":{"key":"os_type"}}`},
	)
	plans := []nova.ObjectPlan{{ID: a, Changes: []nova.Change{
		{Key: "hw_tpm_version", Old: "1.2", New: "2.0", Action: nova.Replaced},
		{Key: "hw_tpm_secret_security", Old: "host", Action: nova.Removed},
		{Key: "os_type", Old: "windows", Action: nova.Removed}}}}
	ApplyVolumePlans(context.Background(), c, plans, []Volume{{ID: a}})
	var pw *nova.PartialWriteError
	if !errors.As(plans[0].Err, &pw) {
		t.Fatalf("Err %v (%T), want a PartialWriteError", plans[0].Err, plans[0].Err)
	}
	if strings.Join(pw.Written, ",") != "hw_tpm_version,os_type" || strings.Join(pw.NotWritten, ",") != "hw_tpm_secret_security" {
		t.Errorf("written %v, not written %v", pw.Written, pw.NotWritten)
	}
}
