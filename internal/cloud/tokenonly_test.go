package cloud

import (
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
)

// KeepTokenOnly keeps the token and its expiry (a request still carries
// it, an expired one is still renewed) and lets the token's body go.
func TestKeepTokenOnly(t *testing.T) {
	exp := time.Date(2026, 12, 6, 18, 0, 0, 0, time.UTC)
	pc := &gophercloud.ProviderClient{}
	body := map[string]any{"token": map[string]any{"expires_at": exp.Format(time.RFC3339), "catalog": []any{map[string]any{"type": "key-manager"}}}}
	res := tokens.CreateResult{}
	res.Body = body
	res.Header = map[string][]string{"X-Subject-Token": {"tok-1"}}
	if err := pc.SetTokenAndAuthResult(res); err != nil {
		t.Fatal(err)
	}
	KeepTokenOnly(pc)
	if pc.Token() != "tok-1" || !pc.TokenExpiry().Equal(exp) {
		t.Fatalf("token %q expiry %v", pc.Token(), pc.TokenExpiry())
	}
	if _, ok := pc.GetAuthResult().(tokens.CreateResult); ok {
		t.Fatal("the token's body (its catalog) is still held")
	}
	if _, err := pc.EndpointLocator(gophercloud.EndpointOpts{Type: "key-manager"}); err == nil {
		t.Fatal("a catalog lookup answered without a catalog")
	}
}
