package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// Volume commands against the captured Cinder list (fakecloud's
// volumes-detail): fx-win11-boot (bootable, hw_tpm 2.0 tpm-crb, from
// fx-win11), fx-data (not bootable), fx-spare (bootable, from fx-plain,
// no TPM keys). The token is an admin's.

const volPath = "/volume/v3/" + fakecloud.ProjectID + "/volumes/"

// volumeCloud adds what the standard fixture lacks: a volume by ID and by
// name, and the image-metadata actions (recorded, answered 200); a cloud
// the volume commands read a part of.
func volumeCloud(t *testing.T) (*fakecloud.Cloud, *[]string) {
	c := fixtureCloud(t)
	c.OptionalRoutes("volumeCloud's: the volume commands read a part")
	defer c.OptionalRoutes("")
	vols := c.FixtureObjects("volumes-detail", "volumes")
	byName := func(w http.ResponseWriter, r *http.Request) {
		var hit []string
		for _, v := range vols {
			if v["name"] == r.URL.Query().Get("name") {
				hit = append(hit, fixtureJSON(v))
			}
		}
		fakecloud.JSON(200, `{"volumes":[`+strings.Join(hit, ",")+`]}`)(w, r)
	}
	c.Handle("GET "+volPath+"detail?limit=1000&name=*&[all_tenants=true] [volume 3.0]", byName)
	c.Handle("GET "+volPath+"* [volume 3.0]", func(w http.ResponseWriter, r *http.Request) {
		id := strings.TrimPrefix(r.URL.Path, volPath)
		for _, v := range vols {
			if v["id"] == id {
				fakecloud.JSON(200, `{"volume":`+fixtureJSON(v)+`}`)(w, r)
				return
			}
		}
		fakecloud.JSON(404, `{"itemNotFound":{"code":404}}`)(w, r)
	})
	var actions []string
	c.Handle("POST "+volPath+"* [volume 3.0]", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		actions = append(actions, strings.TrimPrefix(r.URL.Path, volPath)+" "+string(b))
		fakecloud.JSON(200, `{"metadata":{}}`)(w, r)
	})
	return c, &actions
}

func fixtureJSON(v map[string]any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestFixtureVolumeCommands(t *testing.T) {
	c, actions := volumeCloud(t)
	out, errs, code := runCLI(t, "--os-cloud", "fake", "volume", "list", "-f", "csv", "-c", "name", "-c", "vtpm")
	if code != 0 || !strings.Contains(out, `fx-win11-boot,2.0 tpm-crb`) || !strings.Contains(out, "fx-spare,none") || strings.Contains(out, "fx-data") {
		t.Errorf("volume list: exit %d %s\n%s", code, errs, out)
	}
	if n := c.Count("GET " + volPath + "detail"); n != 1 {
		t.Errorf("volume list sent %d lists, want 1", n)
	}
	out, _, _ = runCLI(t, "--os-cloud", "fake", "volume", "show", "fx-win11-boot", "-f", "value", "-c", "vtpm")
	if strings.TrimSpace(out) != "2.0 tpm-crb" {
		t.Errorf("volume show: %q", out)
	}

	// Already tagged: nothing written.
	_, errs, code = runCLI(t, "--os-cloud", "fake", "volume", "set", "fx-win11-boot", "--tpm-version", "2.0", "--tpm-model", "tpm-crb")
	if code != 0 || len(*actions) != 0 {
		t.Errorf("volume set (no change): exit %d, actions %v: %s", code, *actions, errs)
	}
	// --select image_id: the one bootable volume from fx-plain, one set.
	_, errs, code = runCLI(t, "--os-cloud", "fake", "volume", "set", "--select", "image_id=314a5ae0-f878-4fe2-bbaf-be4b6bb72f2a", "--windows", "--all-projects", "--yes")
	if code != 0 || len(*actions) != 1 || !strings.HasPrefix((*actions)[0], "7e9a1c3b-5d2f-4a6e-8b0c-1d3e5f7a9b04/action {\"os-set_image_metadata\"") {
		t.Errorf("volume set --select: exit %d, actions %v: %s", code, *actions, errs)
	}
	*actions = nil
	// unset: one request per key.
	_, errs, code = runCLI(t, "--os-cloud", "fake", "volume", "unset", "9b2e7c40-3f1a-4d8b-8c6e-5a4d3c2b1a01")
	if code != 0 || len(*actions) != 2 || !strings.Contains(strings.Join(*actions, " "), `{"os-unset_image_metadata":{"key":"hw_tpm_model"}}`) {
		t.Errorf("volume unset: exit %d, actions %v: %s", code, *actions, errs)
	}
	_, errs, code = runCLI(t, "--os-cloud", "fake", "volume", "show", "no-such-volume")
	if code != 2 || !strings.Contains(errs, `no volume named or with ID "no-such-volume"`) {
		t.Errorf("unknown volume: exit %d %s", code, errs)
	}
}

// TestFixtureCheckVolume: Nova's volume rules, not the image's.
func TestFixtureCheckVolume(t *testing.T) {
	volumeCloud(t)
	out, errs, code := runCLI(t, "--os-cloud", "fake", "check", "--volume", "fx-win11-boot", "--flavor", "fx-plain", "-f", "value", "-c", "vtpm", "-c", "model", "-c", "model_source")
	if code != 0 || out != "yes\ntpm-crb\nimage\n" {
		t.Errorf("tagged volume + plain flavor: exit %d %q %s", code, out, errs)
	}
	out, _, code = runCLI(t, "--os-cloud", "fake", "check", "--volume", "fx-win11-boot", "--flavor", "fx-plain", "--flavor-spec", "hw:tpm_model=tpm-tis", "-f", "json")
	if code != 1 || !strings.Contains(out, `"error": "NotImplementedError"`) || !strings.Contains(out, "explicitly set to tpm-tis") {
		t.Errorf("conflict: exit %d\n%s", code, out)
	}
	out, _, code = runCLI(t, "--os-cloud", "fake", "check", "--volume", "fx-data", "--flavor", "fx-vtpm", "-f", "value", "-c", "error")
	if code != 1 || strings.TrimSpace(out) != "Block Device 2c4e6a80-1b3d-4f5a-8c7e-9d1f3a5b7c03 is not bootable." {
		t.Errorf("not bootable: exit %d %q", code, out)
	}
}

// TestFixtureImageSetNamesStaleVolumes: after image set writes, the
// bootable volumes made from the image that lack the change are counted
// from one volume list, with the command that fixes them.
func TestFixtureImageSetNamesStaleVolumes(t *testing.T) {
	c, _ := volumeCloud(t)
	_, errs, code := runCLI(t, "--os-cloud", "fake", "image", "set", fakecloud.FixtureImage, "--windows")
	want := "fx-win11: 1 bootable volume(s) created from this image before do not carry the change"
	fix := "vtpmctl --os-cloud fake volume set --select image_id=15efa622-9c42-48a2-b81c-486deb166f12 --windows --all-projects"
	if code != 0 || !strings.Contains(errs, want) || !strings.Contains(errs, fix) {
		t.Errorf("image set --windows: exit %d, stderr:\n%s\nwant %q and %q", code, errs, want, fix)
	}
	if n := c.Count("GET " + volPath + "detail"); n != 1 {
		t.Errorf("%d volume lists, want 1", n)
	}
	// Nothing written, nothing said.
	n := c.Count("GET " + volPath)
	_, errs, _ = runCLI(t, "--os-cloud", "fake", "image", "set", fakecloud.FixtureImage, "--windows", "--dry-run")
	if strings.Contains(errs, "bootable volume") || c.Count("GET "+volPath) != n {
		t.Errorf("dry run looked at volumes: %s", errs)
	}
}
