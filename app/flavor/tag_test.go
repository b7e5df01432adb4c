package flavor

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// The fixture cloud's flavors: fx-vtpm asks for 2.0 tpm-crb, fx-plain for
// nothing; its image fx-win11 asks for 2.0 tpm-crb. Its compute API
// (2.93) is Zed's.
const (
	fxVTPM  = "5a5fd670-df68-428b-81f8-944379e1009b"
	fxPlain = "258ab7b9-cdbd-4f2e-9fb6-6828a4e801a7"
)

// flavorCloud is the strict fake with the fixture's answers: a request it
// was not told to expect (a write in a dry run, a server count without
// its flavor filter) fails the test.
func flavorCloud(t *testing.T) (*fakecloud.Cloud, *cloud.Session) {
	t.Helper()
	c := fakecloud.New(t).Standard()
	sess, err := cloud.Connect(context.Background(), cloud.Options{Cloud: "fake", Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return c, sess
}

// serversOf answers the count of the servers built from flavor id, asked
// of every project.
func serversOf(c *fakecloud.Cloud, id string, h http.HandlerFunc) {
	c.Handle("GET /compute/v2.1/servers?all_tenants=true&flavor="+id+"&limit=1000", h)
}

// A set writes only the changed key (one PUT, at 2.86 so Nova validates
// it), advises on the image that asks for the old model, and counts the
// servers of the flavor it changed.
func TestFlavorsSet(t *testing.T) {
	c, sess := flavorCloud(t)
	c.Handle("PUT /compute/v2.1/flavors/"+fxVTPM+"/os-extra_specs/hw:tpm_model [compute 2.86]", fakecloud.JSON(200, `{"hw:tpm_model":"tpm-tis"}`))
	serversOf(c, fxVTPM, fakecloud.JSON(200, `{"servers":[{"id":"a","name":"a"},{"id":"b","name":"b"}]}`))
	progress := false
	res, err := Tag(context.Background(), sess, TagRequest{Flavors: []string{"fx-vtpm"}, Set: true,
		Change:   nova.FlavorRequest{TPMModel: "tpm-tis"},
		Progress: func(ctx context.Context) context.Context { progress = true; return ctx }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Release.Release != nova.Zed {
		t.Errorf("release %s", res.Release.Release)
	}
	if len(res.Plans) != 1 || res.Plans[0].Err != nil || len(nova.Writes(res.Plans[0].Changes)) != 1 {
		t.Fatalf("plans %+v", res.Plans)
	}
	if n := len(c.SentTo("PUT", "/compute/v2.1/flavors/"+fxVTPM+"/os-extra_specs/hw:tpm_model")); n != 1 || !progress {
		t.Errorf("%d writes, progress drawn %v", n, progress)
	}
	if res.ConflictsErr != nil || len(res.Conflicts) != 1 || !strings.Contains(res.Conflicts[0], "image fx-win11") {
		t.Errorf("conflicts %q (%v)", res.Conflicts, res.ConflictsErr)
	}
	if len(res.Servers) != 1 || res.Servers[0] != (ServerCount{FlavorID: fxVTPM, Flavor: "fx-vtpm", Count: 2}) {
		t.Errorf("servers %+v", res.Servers)
	}
}

// An unset with no key named removes every vTPM key; a dry run writes
// nothing (the strict cloud has no write route), asks no image (unset
// gives no conflict advice) and still counts the servers it would touch.
func TestFlavorsUnsetDryRun(t *testing.T) {
	c, sess := flavorCloud(t)
	serversOf(c, fxVTPM, fakecloud.JSON(200, `{"servers":[]}`))
	res, err := Tag(context.Background(), sess, TagRequest{Flavors: []string{"fx-vtpm", "fx-plain"}, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Plans) != 2 {
		t.Fatalf("plans %+v", res.Plans)
	}
	var removed []string
	for _, ch := range nova.Writes(res.Plans[0].Changes) {
		if ch.Action == nova.Removed {
			removed = append(removed, ch.Key)
		}
	}
	if strings.Join(removed, " ") != "hw:tpm_model hw:tpm_version" || len(nova.Writes(res.Plans[1].Changes)) != 0 {
		t.Errorf("removed %v; plain flavor %+v", removed, res.Plans[1].Changes)
	}
	if res.Conflicts != nil || res.ConflictsErr != nil || c.Count("GET /image") != 0 {
		t.Errorf("unset advised: %q %v", res.Conflicts, res.ConflictsErr)
	}
	if len(res.Servers) != 1 || res.Servers[0].Flavor != "fx-vtpm" || res.Servers[0].Count != 0 || res.Servers[0].Err != nil {
		t.Errorf("servers %+v", res.Servers)
	}
}

// Unset removes only the keys named.
func TestFlavorsUnsetNamedKeys(t *testing.T) {
	c, sess := flavorCloud(t)
	c.Handle("DELETE /compute/v2.1/flavors/"+fxVTPM+"/os-extra_specs/hw:tpm_model [compute 2.86]", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) })
	serversOf(c, fxVTPM, fakecloud.JSON(200, `{"servers":[]}`))
	res, err := Tag(context.Background(), sess, TagRequest{Flavors: []string{fxVTPM}, Unset: []string{nova.FlavorTPMModel}})
	if err != nil {
		t.Fatal(err)
	}
	if w := nova.Writes(res.Plans[0].Changes); len(w) != 1 || w[0].Key != nova.FlavorTPMModel || res.Plans[0].Err != nil {
		t.Errorf("writes %+v (%v)", w, res.Plans[0].Err)
	}
}

// Failures that are advice stay in the result: an unreadable image list
// is ConflictsErr, an uncountable flavor its Servers entry, a refused
// write its plan's Err (and its servers are not counted).
func TestFlavorsAdviceFailures(t *testing.T) {
	c, sess := flavorCloud(t)
	c.Handle("GET /image/v2/images", fakecloud.JSON(500, `{"error":"boom"}`))
	c.Handle("PUT /compute/v2.1/flavors/"+fxVTPM+"/os-extra_specs/hw:tpm_model", fakecloud.JSON(200, `{"hw:tpm_model":"tpm-tis"}`))
	c.Handle("POST /compute/v2.1/flavors/"+fxPlain+"/os-extra_specs", fakecloud.JSON(403, `{"forbidden":{"message":"policy"}}`))
	serversOf(c, fxVTPM, fakecloud.JSON(403, `{"forbidden":{"message":"policy"}}`))
	res, err := Tag(context.Background(), sess, TagRequest{Flavors: []string{"fx-vtpm", "fx-plain"}, Set: true,
		Change: nova.FlavorRequest{TPMVersion: "2.0", TPMModel: "tpm-tis"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.ConflictsErr == nil || res.Conflicts != nil {
		t.Errorf("conflicts %q (%v)", res.Conflicts, res.ConflictsErr)
	}
	if res.Plans[0].Err != nil || res.Plans[1].Err == nil {
		t.Errorf("write errors %v, %v", res.Plans[0].Err, res.Plans[1].Err)
	}
	if len(res.Servers) != 1 || res.Servers[0].FlavorID != fxVTPM || res.Servers[0].Err == nil {
		t.Errorf("servers %+v", res.Servers)
	}
}

// Errors of the call come before any write: what the release refuses
// (before the flavors are listed), an unknown flavor, a flavor Nova
// would refuse afterwards, a release the cloud does not tell.
func TestFlavorsRefused(t *testing.T) {
	for _, tc := range []struct {
		name    string
		req     TagRequest
		cloud   func(*fakecloud.Cloud)
		want    func(error) bool
		release bool // the release was settled (the caller warns)
	}{
		{name: "secret security on Zed", req: TagRequest{Flavors: []string{"fx-vtpm"}, Set: true, Change: nova.FlavorRequest{SecretSecurity: "host"}},
			want: func(err error) bool {
				var fe *nova.FieldError
				return errors.As(err, &fe) && fe.Field == nova.FieldSecretSecurity
			}, release: true},
		{name: "unknown flavors", req: TagRequest{Flavors: []string{"nope", "fx-vtpm"}, Set: true, Change: nova.FlavorRequest{TPMVersion: "2.0"}},
			cloud: func(c *fakecloud.Cloud) {
				c.Handle("GET /compute/v2.1/flavors/nope [compute >=2.61]", fakecloud.JSON(404, `{"itemNotFound":{"message":"no"}}`))
			},
			want: func(err error) bool {
				var nf *nova.NotFoundError
				return errors.As(err, &nf) && nf.Ref == "nope"
			}, release: true},
		{name: "CRB with 1.2", req: TagRequest{Flavors: []string{"fx-vtpm"}, Set: true, Change: nova.FlavorRequest{TPMVersion: "1.2"}},
			want: func(err error) bool {
				var re *nova.RequestError
				return errors.As(err, &re) && strings.Contains(err.Error(), "would be refused by Nova")
			}, release: true},
		{name: "flavor list fails", req: TagRequest{Flavors: []string{"fx-vtpm"}},
			cloud: func(c *fakecloud.Cloud) {
				c.Handle("GET /compute/v2.1/flavors/detail", fakecloud.JSON(500, `{"error":"boom"}`))
			},
			want: func(err error) bool { return strings.Contains(err.Error(), "500") }, release: true},
		{name: "release unknown", req: TagRequest{Flavors: []string{"fx-vtpm"}},
			cloud: func(c *fakecloud.Cloud) { c.Handle("GET /compute/v2.1/", fakecloud.JSON(500, `{"error":"down"}`)) },
			want:  func(err error) bool { return strings.Contains(err.Error(), "compute API version") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, sess := flavorCloud(t)
			if tc.cloud != nil {
				tc.cloud(c)
			}
			res, err := Tag(context.Background(), sess, tc.req)
			if err == nil || !tc.want(err) {
				t.Fatalf("error %v", err)
			}
			if settled := res.Release.Release != nova.ReleaseUnknown; settled != tc.release {
				t.Errorf("release %s settled %v, want %v", res.Release.Release, settled, tc.release)
			}
			for _, r := range c.Sent() {
				if r.Method != "GET" && r.Method != "POST" || r.Method == "POST" && !strings.HasPrefix(r.Path, "/identity") {
					t.Errorf("wrote %s %s before refusing", r.Method, r.Path)
				}
			}
			if tc.name == "secret security on Zed" && c.Count("GET /compute/v2.1/flavors") != 0 {
				t.Error("listed flavors for a request the release refuses")
			}
		})
	}
}
