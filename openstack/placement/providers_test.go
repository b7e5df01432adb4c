package placement

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// answer is a strict fakecloud serving one Placement reply: the list of
// providers with trait, at 1.18 (required= needs it); any other request
// fails the test.
func answer(t *testing.T, trait string, status int, body string) (*gophercloud.ServiceClient, *fakecloud.Cloud) {
	t.Helper()
	f := fakecloud.New(t)
	f.Handle("GET /placement/resource_providers?required="+trait+" [placement 1.18]", fakecloud.JSON(status, body))
	return f.ServiceClient("placement"), f
}

// TestProvidersWithTrait: one list with required= at 1.18, the caller's
// client unchanged.
func TestProvidersWithTrait(t *testing.T) {
	c, f := answer(t, "COMPUTE_SECURITY_TPM_2_0", 200, `{"resource_providers":[{"uuid":"rp-a","name":"a.example"},{"uuid":"rp-b","name":"b.example"}]}`)
	rps, err := ProvidersWithTrait(context.Background(), c, "COMPUTE_SECURITY_TPM_2_0")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(rps) != "[{rp-a a.example} {rp-b b.example}]" {
		t.Errorf("providers %v", rps)
	}
	if got, want := f.Sent(), "GET /placement/resource_providers?required=COMPUTE_SECURITY_TPM_2_0 [placement 1.18]"; len(got) != 1 || got[0].String() != want {
		t.Errorf("requests %v, want %q", got, want)
	}
	if c.Microversion != "" {
		t.Errorf("caller's client changed: %q", c.Microversion)
	}
}

// TestProvidersWithUnknownTrait: a trait this Placement does not know
// (400) is no provider's, not an error.
func TestProvidersWithUnknownTrait(t *testing.T) {
	c, _ := answer(t, "OWNER_NOVA", 400, `{"errors":[{"status":400,"title":"Bad Request","detail":"No such trait(s): OWNER_NOVA."}]}`)
	rps, err := ProvidersWithTrait(context.Background(), c, "OWNER_NOVA")
	if err != nil || rps == nil || len(rps) != 0 {
		t.Errorf("unknown trait: %v %v", rps, err)
	}
}

// TestProvidersWithTraitFails: another failure names its trait and is no
// partial answer.
func TestProvidersWithTraitFails(t *testing.T) {
	c, _ := answer(t, "COMPUTE_SECURITY_TPM_1_2", 503, `{"errors":[{"status":503}]}`)
	rps, err := ProvidersWithTrait(context.Background(), c, "COMPUTE_SECURITY_TPM_1_2")
	if err == nil || rps != nil || !strings.Contains(err.Error(), "listing resource providers with COMPUTE_SECURITY_TPM_1_2") {
		t.Errorf("503: %v %v", rps, err)
	}
}
