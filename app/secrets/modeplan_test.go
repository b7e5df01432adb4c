package secrets

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud/scale"
)

// 2026.1 (2.103): every guest of the synthetic cloud is in mode user
// (no flavor sets hw:tpm_secret_security); the catalog has no host-mode
// flavor, so each plan names the flavor create line; one flavor list,
// one image list, one server list (strict: anything else fails).
func TestModeChangeStrict(t *testing.T) {
	c, sess := scale.Session(t, scale.Config{Guests: 6, Others: 2, Projects: 2, Hypervisors: 1, Microversion: "2.103"})
	res, err := ModeChange(context.Background(), sess, ModeChangeRequest{AllProjects: true, To: nova.SecretHost})
	if err != nil {
		t.Fatal(err)
	}
	if res.NoModes != "" || len(res.Servers) != 6 || res.Unreached() != 6 {
		t.Fatalf("no-modes %q, %d rows, %d unreached: %+v", res.NoModes, len(res.Servers), res.Unreached(), res.Servers)
	}
	for _, s := range res.Servers {
		if s.From != nova.SecretUser || s.Verdict != nova.ModeChangeNoFlavor || !s.ResizeAllowed ||
			s.NewFlavor == nil || s.NewFlavor.Name != s.Flavor+"-host" || s.NewFlavor.VCPUs != 2 || s.NewFlavor.RAM != 4096 || s.NewFlavor.Disk != 40 || s.NewFlavor.TPMVersion != "2.0" {
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
	c, sess := scale.Session(t, scale.Config{Guests: 2, Projects: 1, Hypervisors: 1}) // 2.93: Zed
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

// PlanModeChanges keeps the selected project's vTPM guests (not the
// others), sizes each from the catalog entry of its flavor's name, and
// reads a volume-backed server's boot volume as Nova does.
func TestPlanModeChanges(t *testing.T) {
	userF := nova.Flavor{Name: "w1", ExtraSpecs: map[string]string{"hw:tpm_version": "2.0"}}
	plain := nova.Flavor{Name: "p1", ExtraSpecs: map[string]string{}}
	hostF := nova.CloudFlavor{ID: "h", VCPUs: 2, RAM: 4096, Disk: 40, Flavor: nova.Flavor{Name: "w1-host",
		ExtraSpecs: map[string]string{"hw:tpm_version": "2.0", "hw:tpm_secret_security": "host"}}}
	vol := &nova.Image{Properties: map[string]string{"hw_tpm_version": "2.0"}}
	inv := nova.Inventory{Servers: map[string]nova.Server{
		"a": {ID: "a", Name: "a", ProjectID: "p", Flavor: userF},
		"b": {ID: "b", Name: "b", ProjectID: "q", Flavor: userF},
		"c": {ID: "c", Name: "c", ProjectID: "p", Flavor: plain},                  // no vTPM: left out
		"d": {ID: "d", Name: "d", ProjectID: "p", Flavor: plain, BootVolume: vol}, // vTPM from its volume
	}}
	catalog := []nova.CloudFlavor{{ID: "w", VCPUs: 4, RAM: 4096, Disk: 40, Flavor: userF}, hostF}
	rows := PlanModeChanges(inv, catalog, nova.Gazpacho, ModeChangeRequest{ProjectID: "p", To: nova.SecretHost})
	got := []string{}
	for _, r := range rows {
		got = append(got, r.ServerID+":"+string(r.Verdict)+":"+strings.Join(r.Flavors, ","))
	}
	// a's w1 has 4 vCPUs: w1-host (2) is smaller; d's p1 is not in the
	// catalog, so its size is unknown and w1-host fits.
	if want := "a:no-flavor:,d:resize:w1-host"; strings.Join(got, ",") != want {
		t.Errorf("got %v, want %s", got, want)
	}
}
