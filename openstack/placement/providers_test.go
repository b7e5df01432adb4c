package placement

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
)

// answer serves one Placement reply and records the request and the
// microversion header it carried.
func answer(t *testing.T, status int, body string) (c *gophercloud.ServiceClient, got *[]string) {
	t.Helper()
	var reqs []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqs = append(reqs, r.Method+" "+r.URL.RequestURI()+" @"+r.Header.Get("OpenStack-API-Version"))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	pc := &gophercloud.ProviderClient{HTTPClient: http.Client{}}
	ep := srv.URL + "/placement/"
	return &gophercloud.ServiceClient{ProviderClient: pc, Endpoint: ep, ResourceBase: ep, Type: "placement"}, &reqs
}

// TestProvidersWithTrait: one list with required= at 1.18, the caller's
// client unchanged.
func TestProvidersWithTrait(t *testing.T) {
	c, got := answer(t, 200, `{"resource_providers":[{"uuid":"rp-a","name":"a.example"},{"uuid":"rp-b","name":"b.example"}]}`)
	rps, err := ProvidersWithTrait(context.Background(), c, "COMPUTE_SECURITY_TPM_2_0")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(rps) != "[{rp-a a.example} {rp-b b.example}]" {
		t.Errorf("providers %v", rps)
	}
	if want := "GET /placement/resource_providers?required=COMPUTE_SECURITY_TPM_2_0 @placement 1.18"; len(*got) != 1 || (*got)[0] != want {
		t.Errorf("requests %q, want %q", *got, want)
	}
	if c.Microversion != "" {
		t.Errorf("caller's client changed: %q", c.Microversion)
	}
}

// TestProvidersWithUnknownTrait: a trait this Placement does not know
// (400) is no provider's, not an error.
func TestProvidersWithUnknownTrait(t *testing.T) {
	c, _ := answer(t, 400, `{"errors":[{"status":400,"title":"Bad Request","detail":"No such trait(s): OWNER_NOVA."}]}`)
	rps, err := ProvidersWithTrait(context.Background(), c, "OWNER_NOVA")
	if err != nil || rps == nil || len(rps) != 0 {
		t.Errorf("unknown trait: %v %v", rps, err)
	}
}

// TestProvidersWithTraitFails: another failure names its trait and is no
// partial answer.
func TestProvidersWithTraitFails(t *testing.T) {
	c, _ := answer(t, 503, `{"errors":[{"status":503}]}`)
	rps, err := ProvidersWithTrait(context.Background(), c, "COMPUTE_SECURITY_TPM_1_2")
	if err == nil || rps != nil || !strings.Contains(err.Error(), "listing resource providers with COMPUTE_SECURITY_TPM_1_2") {
		t.Errorf("503: %v %v", rps, err)
	}
}
