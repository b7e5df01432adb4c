package cloud

import (
	"reflect"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// The regions a key manager serves are read from the token's catalog:
// the session's own first, then every region listing the same endpoint,
// compared as normalized URLs; a region listing another key manager is
// not one of them. No request is sent for it.
func TestSharedRegions(t *testing.T) {
	c := fakecloud.New(t)
	c.AddRegion("RegionTwo", "/compute-two/v2.1/", true)
	c.AddRegion("RegionThree", "/compute-three/v2.1/", false)
	c.Catalog = append(c.Catalog, fakecloud.Service{Type: "key-manager", Path: "/key-manager-three/", Region: "RegionThree"})
	s, err := connectFake(t, Options{})
	if err != nil {
		t.Fatal(err)
	}
	before := len(c.Sent())
	got, err := s.SharedRegions("key-manager")
	if want := []string{"RegionOne", "RegionTwo"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("shared regions %q %v, want %q", got, err, want)
	}
	for region, path := range map[string]string{"RegionOne": "/compute/v2.1/", "RegionTwo": "/compute-two/v2.1/", "RegionThree": "/compute-three/v2.1/"} {
		if cc, err := s.ComputeIn(region); err != nil || cc.Endpoint != c.URL+path || cc.ResourceBaseURL() != c.URL+path {
			t.Errorf("%s: %v %v", region, cc, err)
		}
	}
	if _, err := s.ComputeIn("RegionFour"); err == nil || !strings.Contains(err.Error(), `no compute endpoint (interface public) for region "RegionFour"`) {
		t.Errorf("a region without Nova: %v", err)
	}
	if n := len(c.Sent()); n != before {
		t.Errorf("%d request(s) sent to read the catalog", n-before)
	}
	// Seen from RegionThree, its key manager is its own.
	s3, err := connectFake(t, Options{Region: "RegionThree"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s3.SharedRegions("key-manager"); err != nil || !reflect.DeepEqual(got, []string{"RegionThree"}) {
		t.Errorf("RegionThree: %q %v", got, err)
	}
}

func TestNormalURL(t *testing.T) {
	for _, c := range [][2]string{
		{"https://KMS.example:443/key-manager/", "https://kms.example:443/key-manager"},
		{"https://kms.example/key-manager", "https://kms.example:443/key-manager"},
		{"http://kms.example/", "http://kms.example:80"},
		{"http://kms.example:9311", "http://kms.example:9311"},
		{"http://[::1]:9311/v1/", "http://[::1]:9311/v1"},
	} {
		if got := NormalURL(c[0]); got != c[1] {
			t.Errorf("NormalURL(%q) = %q, want %q", c[0], got, c[1])
		}
	}
	if NormalURL("https://kms.example:9311/") == NormalURL("https://kms.example:9312/") || NormalURL("http://kms/a") == NormalURL("https://kms/a") ||
		NormalURL("https://kms/a") == NormalURL("https://kms/b") {
		t.Error("different endpoints compared equal")
	}
}
