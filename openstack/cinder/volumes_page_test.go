package cinder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// pagedVolumes is a strict fakecloud serving /volumes/detail in pages of
// per (Cinder's max_limit): the first request with want as its query,
// later ones (only with next) that and the marker of the next link, every
// one at ImageMetadataMicroversion, which the list sets itself whatever
// its caller's client speaks (the client here asks for another: a list,
// or a next page, that kept it would be read at that); anything else
// fails the test.
func pagedVolumes(tb testing.TB, n, per int, want string, next bool) (*gophercloud.ServiceClient, *fakecloud.Cloud) {
	// a benchmark's fake keeps no records: they would count in its allocations
	_, bench := tb.(*testing.B)
	c := fakecloud.NewWith(tb, fakecloud.Options{NoRecord: bench})
	m := fakecloud.Markers{N: n, MaxLimit: per, ID: func(i int) string { return fmt.Sprintf("v%d", i) },
		Index: func(id string) (int, bool) {
			i, err := strconv.Atoi(strings.TrimPrefix(id, "v"))
			return i, err == nil && strings.HasPrefix(id, "v")
		}}
	page := func(w http.ResponseWriter, r *http.Request) {
		from, to, ok := m.Page(w, r)
		if !ok {
			c.Errorf("unexpected marker in %s", r.URL)
			return
		}
		var b strings.Builder
		b.WriteString(`{"volumes":[`)
		for i := from; i < to; i++ {
			if i > from {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":"v%d","name":"n","status":"in-use","bootable":"true","size":40,"volume_type":"ceph","metadata":{},`+
				`"volume_image_metadata":{"hw_tpm_version":"2.0","image_name":"win","checksum":"%032x","disk_format":"raw"},`+
				`"attachments":[{"server_id":"s%d","device":"/dev/vda","attachment_id":"a","volume_id":"v%d","host_name":"h"}]}`, i, i, i, i)
		}
		b.WriteString("]")
		if next := m.Next(r, c.URL+"/volume/v3/volumes/detail", from, to); next != "" {
			l, _ := json.Marshal(fakecloud.Links(next))
			fmt.Fprintf(&b, `,"volumes_links":%s`, l)
		}
		b.WriteString("}")
		fakecloud.WriteBody(w, 200, []byte(b.String()))
	}
	mv := " [volume " + ImageMetadataMicroversion + "]"
	c.Handle("GET /volume/v3/volumes/detail?"+want+mv, page)
	if next {
		c.Handle("GET /volume/v3/volumes/detail?"+want+"&marker=*"+mv, page)
	}
	return at(c.ServiceClient("volume/v3"), "3.60"), c
}

// Every page is followed from its next link and handed over as it
// arrives, decoded into Volume; f's error stops the list.
func TestEachVolumePage(t *testing.T) {
	c, f := pagedVolumes(t, 5, 2, "all_tenants=true&limit=1000", true)
	var sizes []int
	err := EachVolumePage(context.Background(), c, ListOpts{AllTenants: true}, func(p []Volume) error {
		sizes = append(sizes, len(p))
		if v := p[0]; !bool(v.Bootable) || v.ImageMetadata["hw_tpm_version"] != "2.0" || v.Attachments[0].Device != "/dev/vda" {
			t.Errorf("decoded %+v", v)
		}
		return nil
	})
	if err != nil || fmt.Sprint(sizes) != "[2 2 1]" || len(f.Requests) != 3 {
		t.Errorf("pages %v, requests %q, %v", sizes, f.Requests, err)
	}
	stop := errors.New("stop")
	c, f = pagedVolumes(t, 5, 2, "limit=1000", false)
	if err := EachVolumePage(context.Background(), c, ListOpts{}, func([]Volume) error { return stop }); err != stop || len(f.Requests) != 1 {
		t.Errorf("%v after %q", err, f.Requests)
	}
	c, _ = pagedVolumes(t, 3, 1000, "limit=1000", false)
	if vols, err := ListVolumes(context.Background(), c, ListOpts{}); err != nil || len(vols) != 3 || vols[2].ID != "v2" {
		t.Errorf("%+v %v", vols, err)
	}
}

// BenchmarkListVolumes1000 lists one full page of 1,000 volumes (and the
// empty page after it).
func BenchmarkListVolumes1000(b *testing.B) {
	c, _ := pagedVolumes(b, 1000, 1000, "limit=1000", true)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if vols, err := ListVolumes(context.Background(), c, ListOpts{}); err != nil || len(vols) != 1000 {
			b.Fatal(len(vols), err)
		}
	}
}
