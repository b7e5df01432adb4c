package scale

import (
	"encoding/json"
	"net/http"
	"testing"
)

// Cinder's volume list: served only when volumes are configured (and
// then in the catalog), the URL's project must be the token's, unknown
// filters are refused, all_tenants widens the list, full pages link on.
func TestVolumes(t *testing.T) {
	c := startCounting(t, Config{Guests: 40, Others: 4, Projects: 2, Hypervisors: 3, VolumeBacked: 4})
	admin, p1 := c.Token(c.d.projectID(pAdmin)), c.Token(c.d.projectID(pTenant0+1)) // every volume-backed server (odd) is in the second tenant
	type vols struct {
		Volumes []struct {
			ID          string            `json:"id"`
			Bootable    string            `json:"bootable"`
			Project     string            `json:"os-vol-tenant-attr:tenant_id"`
			Meta        map[string]string `json:"volume_image_metadata"`
			Attachments []struct {
				ServerID string `json:"server_id"`
				Device   string `json:"device"`
			} `json:"attachments"`
		} `json:"volumes"`
		Links []struct{ Href, Rel string } `json:"volumes_links"`
	}
	base := func(p int) string { return c.URL + "/volume/v3/" + c.d.projectID(p) + "/volumes/detail" }
	var all vols
	if s := get(t, admin, base(pAdmin)+"?all_tenants=true&limit=1000", &all); s != 200 || len(all.Volumes) != c.NumVolumes() || len(all.Links) != 0 {
		t.Fatalf("all tenants: %d, %d volumes of %d, links %v", s, len(all.Volumes), c.NumVolumes(), all.Links)
	}
	boot, tpm := 0, 0
	for _, v := range all.Volumes {
		a := v.Attachments[0]
		i, _ := c.d.parseUUID(a.ServerID, kServer)
		if !c.d.volumeBacked(i) || c.d.server(i).image != "" || c.d.server(i).project != v.Project {
			t.Errorf("volume %s on server %d", v.ID, i)
		}
		if a.Device == "/dev/vda" && v.Bootable == "true" {
			boot++
			if v.Meta["hw_tpm_version"] == "2.0" {
				tpm++
			}
		}
	}
	if _, byVolume := c.VolumeBackedGuests(); boot != 11 || tpm != byVolume || tpm == 0 {
		t.Errorf("%d boot volumes, %d with a vTPM (want %d)", boot, tpm, byVolume)
	}
	var own vols
	get(t, p1, base(pTenant0+1)+"?limit=2", &own)
	if len(own.Volumes) != 2 || len(own.Links) != 1 || own.Links[0].Rel != "next" {
		t.Fatalf("own project: %+v", own)
	}
	get(t, p1, own.Links[0].Href, &own)
	for _, v := range own.Volumes {
		if v.Project != c.d.projectID(pTenant0+1) {
			t.Errorf("another project's volume %s", v.ID)
		}
	}
	if s := get(t, p1, base(pAdmin), nil); s != 400 {
		t.Errorf("another project's URL: %d", s)
	}
	if s := get(t, admin, base(pAdmin)+"?bootable=true", nil); s != 501 {
		t.Errorf("unserved filter: %d", s)
	}
	if st := c.Stats(); st.NUnexpected != 1 {
		t.Errorf("unexpected: %v", st.Unexpected)
	}
}

// From 2.98 a server's image carries the properties Nova stored at boot;
// a volume-backed server's image stays "".
func TestServerImageProperties(t *testing.T) {
	c := start(t, Config{Guests: 6, Projects: 1, Hypervisors: 3, VolumeBacked: 4, Microversion: "2.100"})
	tok := c.Token(c.d.projectID(pAdmin))
	for _, at := range []string{"2.47", "2.98"} {
		req, _ := http.NewRequest("GET", c.URL+"/compute/v2.1/servers/detail?all_tenants=true", nil)
		req.Header.Set("X-Auth-Token", tok)
		req.Header.Set("X-OpenStack-Nova-API-Version", at)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct{ Servers []struct{ Image any } }
		json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		for i, s := range body.Servers {
			img, _ := s.Image.(map[string]any)
			props, shown := img["properties"].(map[string]any)
			switch {
			case c.d.volumeBacked(i):
				if s.Image != "" {
					t.Errorf("%s: volume-backed server %d: image %v", at, i, s.Image)
				}
			case shown != (at == "2.98") || shown && (props["hw_tpm_version"] == "2.0") != (i%3 == 0):
				t.Errorf("%s: server %d: image %v", at, i, s.Image)
			}
		}
	}
}
