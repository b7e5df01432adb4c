package predict

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/scalecloud"
	"github.com/vtpmctl/vtpmctl/internal/scalecloud/scaletest"
	"github.com/vtpmctl/vtpmctl/nova"
)

// 2026.1 (2.103): every guest of the synthetic cloud is in mode user
// (no flavor sets hw:tpm_secret_security); the catalog has no host-mode
// flavor, so each plan names the flavor create line; one flavor list,
// one image list, one server list (strict: anything else fails).
func TestModeChangeStrict(t *testing.T) {
	c, sess := scaletest.Session(t, scalecloud.Config{Guests: 6, Others: 2, Projects: 2, Hypervisors: 1, Microversion: "2.103"})
	res, err := ModeChange(context.Background(), sess, ModeChangeRequest{AllProjects: true, To: nova.SecretHost})
	if err != nil {
		t.Fatal(err)
	}
	if res.NoModes != "" || len(res.Servers) != 6 || res.Unreached() != 6 {
		t.Fatalf("no-modes %q, %d rows, %d unreached: %+v", res.NoModes, len(res.Servers), res.Unreached(), res.Servers)
	}
	for _, s := range res.Servers {
		if s.From != nova.SecretUser || s.Verdict != nova.ModeChangeNoFlavor || !s.ResizeAllowed ||
			!strings.HasPrefix(s.CreateFlavor, "vtpmctl flavor create "+s.Flavor+"-host --vcpus 2 --ram 4096 --disk 40 --tpm-version 2.0 ") {
			t.Errorf("%s: %+v", s.ServerID, s.ModeChangePlan)
		}
	}
	st := c.Stats()
	for route, want := range map[string]int{"GET /compute/v2.1/flavors/detail": 1, "GET /compute/v2.1/servers/detail": 1} {
		if st.ByRoute[route] != want {
			t.Errorf("%s: %d requests, want %d (all: %v)", route, st.ByRoute[route], want, st.ByRoute)
		}
	}

	one, err := ModeChange(context.Background(), sess, ModeChangeRequest{ServerID: res.Servers[0].ServerID, AllProjects: true, To: nova.SecretDeployment})
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Servers) != 1 || one.Servers[0].Verdict != nova.ModeChangeRefused || one.Servers[0].Refusal != nova.ResizeAcrossDeployment {
		t.Errorf("deployment plan for one server: %+v", one.Servers)
	}
	_, err = ModeChange(context.Background(), sess, ModeChangeRequest{ServerID: "no-such-server", AllProjects: true, To: nova.SecretHost})
	var nf *nova.NotFoundError
	if !errors.As(err, &nf) || nf.Kind != "server" {
		t.Errorf("unknown server: %v", err)
	}
}

// Before 2026.1 the answer is one line, and nothing is listed.
func TestModeChangeNoModes(t *testing.T) {
	c, sess := scaletest.Session(t, scalecloud.Config{Guests: 2, Projects: 1, Hypervisors: 1}) // 2.93: Zed
	res, err := ModeChange(context.Background(), sess, ModeChangeRequest{AllProjects: true, To: nova.SecretHost})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.NoModes, "no TPM secret security modes") || len(res.Servers) != 0 || res.Unreached() != 0 {
		t.Errorf("%+v", res)
	}
	for route, n := range c.Stats().ByRoute {
		if strings.Contains(route, "servers") || strings.Contains(route, "flavors") || strings.Contains(route, "images") {
			t.Errorf("%s asked %d times before 2026.1", route, n)
		}
	}
	if tb := res.Table(); len(tb.Rows) != 0 || len(tb.Footer) != 1 {
		t.Errorf("table %+v", tb)
	}
}
