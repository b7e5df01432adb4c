package cinder

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
)

// pagedVolumes serves /volumes/detail in pages of per, strictly: a GET,
// the first request with want as its query, later ones the marker of the
// next link, every one at ImageMetadataMicroversion, which the list sets
// itself whatever its caller's client speaks (the client here asks for
// another: a list, or a next page, that kept it would be read at that);
// anything else fails the test.
func pagedVolumes(tb testing.TB, n, per int, want string) (*gophercloud.ServiceClient, *[]string) {
	var got []string
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.URL.RequestURI())
		from := 0
		mv := r.Header.Get("OpenStack-API-Version")
		switch q := r.URL.RawQuery; {
		case r.Method != "GET" || mv != "volume "+ImageMetadataMicroversion:
			tb.Errorf("unexpected %s %s at microversion %q, want volume %s", r.Method, r.URL, mv, ImageMetadataMicroversion)
			w.WriteHeader(501)
			return
		case r.URL.Path != "/volume/v3/volumes/detail":
			tb.Errorf("unexpected %s", r.URL)
			w.WriteHeader(501)
			return
		case q == want:
		case strings.HasPrefix(q, want+"&marker=v"):
			fmt.Sscan(strings.TrimPrefix(q, want+"&marker=v"), &from)
			from++
		default:
			tb.Errorf("unexpected query %q", q)
			w.WriteHeader(501)
			return
		}
		var b strings.Builder
		b.WriteString(`{"volumes":[`)
		to := min(n, from+per)
		for i := from; i < to; i++ {
			if i > from {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":"v%d","name":"n","status":"in-use","bootable":"true","size":40,"volume_type":"ceph","metadata":{},`+
				`"volume_image_metadata":{"hw_tpm_version":"2.0","image_name":"win","checksum":"%032x","disk_format":"raw"},`+
				`"attachments":[{"server_id":"s%d","device":"/dev/vda","attachment_id":"a","volume_id":"v%d","host_name":"h"}]}`, i, i, i, i)
		}
		b.WriteString("]")
		if to-from == per {
			fmt.Fprintf(&b, `,"volumes_links":[{"rel":"next","href":"%s/volume/v3/volumes/detail?%s&marker=v%d"}]`, srv.URL, want, to-1)
		}
		b.WriteString("}")
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(b.String()))
	}))
	tb.Cleanup(srv.Close)
	pc := &gophercloud.ProviderClient{HTTPClient: *http.DefaultClient}
	ep := srv.URL + "/volume/v3/"
	return at(&gophercloud.ServiceClient{ProviderClient: pc, Endpoint: ep, ResourceBase: ep, Type: "block-storage"}, "3.60"), &got
}

// Every page is followed from its next link and handed over as it
// arrives, decoded into Volume; f's error stops the list.
func TestEachVolumePage(t *testing.T) {
	c, got := pagedVolumes(t, 5, 2, "all_tenants=true&limit=1000")
	var sizes []int
	err := EachVolumePage(context.Background(), c, ListOpts{AllTenants: true}, func(p []Volume) error {
		sizes = append(sizes, len(p))
		if v := p[0]; !bool(v.Bootable) || v.ImageMetadata["hw_tpm_version"] != "2.0" || v.Attachments[0].Device != "/dev/vda" {
			t.Errorf("decoded %+v", v)
		}
		return nil
	})
	if err != nil || fmt.Sprint(sizes) != "[2 2 1]" || len(*got) != 3 {
		t.Errorf("pages %v, requests %q, %v", sizes, *got, err)
	}
	stop := errors.New("stop")
	c, got = pagedVolumes(t, 5, 2, "limit=1000")
	if err := EachVolumePage(context.Background(), c, ListOpts{}, func([]Volume) error { return stop }); err != stop || len(*got) != 1 {
		t.Errorf("%v after %q", err, *got)
	}
	c, _ = pagedVolumes(t, 3, 1000, "limit=1000")
	if vols, err := ListVolumes(context.Background(), c, ListOpts{}); err != nil || len(vols) != 3 || vols[2].ID != "v2" {
		t.Errorf("%+v %v", vols, err)
	}
}

// BenchmarkListVolumes1000 lists one full page of 1,000 volumes (and the
// empty page after it).
func BenchmarkListVolumes1000(b *testing.B) {
	c, _ := pagedVolumes(b, 1000, 1000, "limit=1000")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if vols, err := ListVolumes(context.Background(), c, ListOpts{}); err != nil || len(vols) != 1000 {
			b.Fatal(len(vols), err)
		}
	}
}
