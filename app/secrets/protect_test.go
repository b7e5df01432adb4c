package secrets

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/openstack/barbican"
)

var now = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// TestDetectAPI: one GET of the versions document tells the microversion;
// a Barbican before microversions is 1.0, which has no consumers.
func TestDetectAPI(t *testing.T) {
	for _, tc := range []struct {
		api, want          string
		consumers, refuses bool
	}{{"", "1.0", false, false}, {"1.1", "1.1", true, false}, {"1.2", "1.2", true, true}} {
		c := newFakeCloud(t)
		c.api = tc.api
		km, _ := c.sources().KeyManager(context.Background(), "p1")
		a, err := barbican.DetectAPI(context.Background(), km)
		if err != nil || a.String() != tc.want || a.HasConsumers() != tc.consumers || a.RefusesDelete() != tc.refuses || c.total() != 1 {
			t.Errorf("api %q: %v %v (%d requests)", tc.api, a, err, c.total())
		}
	}
}

// protectCloud: project p1 with three vTPM guests' secrets (one already
// protected by hand) and an orphan whose instance is gone; p2 with one
// guest's secret.
func protectCloud(t *testing.T, api string) (*fakeCloud, Sources) {
	c := newFakeCloud(t)
	c.api = api
	c.addSecrets("p1", 1, 0, 4, 2, func(int) string { return "alice" })
	c.addSecrets("p2", 2, 10, 1, 0, func(int) string { return "bob" })
	for i := range c.secrets["p1"] {
		if s := &c.secrets["p1"][i]; s.name == vtpmsecret.NamePrefix+fakeUUID(9, 2) {
			s.consumers = []vtpmsecret.Consumer{vtpmsecret.NovaConsumer(fakeUUID(9, 2))}
		}
	}
	src := c.sources("p1", "p2")
	src.ReadACLs = false
	var guests []vtpmsecret.Guest
	for _, i := range []int{0, 1, 2} { // 3 is the orphan
		guests = append(guests, vtpmsecret.Guest{ServerID: fakeUUID(9, i), Name: "win", ProjectID: "p1", UserID: "alice", Mode: "user"})
	}
	guests = append(guests, vtpmsecret.Guest{ServerID: fakeUUID(9, 10), ProjectID: "p2", UserID: "bob", Mode: "user"})
	src.Inventory = &nova.Inventory{Guests: nova.NewGuestList(guests...)}
	return c, src
}

func gatherProtect(t *testing.T, c *fakeCloud, src Sources, dry bool) vtpmsecret.ProtectResult {
	t.Helper()
	km, _ := src.KeyManager(context.Background(), "p1")
	api, err := barbican.DetectAPI(context.Background(), km)
	if err != nil {
		t.Fatal(err)
	}
	src.API = api
	f, err := Gather(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	r := vtpmsecret.PlanProtect(f, vtpmsecret.Audit(f, now), dry, nil)
	if !dry {
		Protect(context.Background(), &r, src.KeyManager, 4)
	}
	return r
}

func TestProtect(t *testing.T) {
	c, src := protectCloud(t, "1.1")
	// a dry run: the three unprotected guests, nothing written
	r := gatherProtect(t, c, src, true)
	if s := r.Summary; s.WouldRegister != 3 || s.Already != 1 || s.NotProtected != 1 || s.Registered != 0 || c.count("consumer-post") != 0 {
		t.Fatalf("dry run %+v, %d writes", s, c.count("consumer-post"))
	}
	// the orphan is reported, never protected
	for _, a := range r.Secrets {
		if a.ServerID == fakeUUID(9, 3) && (a.Action != vtpmsecret.ActNotProtected || !strings.Contains(a.Detail, "orphan: instance "+fakeUUID(9, 3)+" no longer exists")) {
			t.Errorf("orphan %+v", a)
		}
	}
	// only one server: that guest's secret only, no orphan
	km, _ := src.KeyManager(context.Background(), "p1")
	src.API, _ = barbican.DetectAPI(context.Background(), km)
	f, err := Gather(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	if one := vtpmsecret.PlanProtect(f, vtpmsecret.Audit(f, now), true, map[string]bool{fakeUUID(9, 1): true}); len(one.Secrets) != 1 || one.Secrets[0].ServerID != fakeUUID(9, 1) || one.Summary.WouldRegister != 1 {
		t.Errorf("only %s: %+v", fakeUUID(9, 1), one.Secrets)
	}
	// only a server that is no guest and no secret's instance: said, by ID (the
	// command exits 1 on it; before: "registered 0, failed 0", exit 0)
	unknown := fakeUUID(7, 7)
	if r := vtpmsecret.PlanProtect(f, vtpmsecret.Audit(f, now), true, map[string]bool{unknown: true, fakeUUID(9, 1): true}); len(r.Unmatched) != 1 || r.Unmatched[0] != unknown || r.Summary.WouldRegister != 1 {
		t.Errorf("only %s: unmatched %v, %+v", unknown, r.Unmatched, r.Summary)
	}
	// the writes: one per unprotected secret, with its project's token
	r = gatherProtect(t, c, src, false)
	if s := r.Summary; s.Registered != 3 || s.Failed != 0 || c.count("consumer-post") != 3 {
		t.Fatalf("protect %+v, %d writes", s, c.count("consumer-post"))
	}
	for _, p := range []string{"p1", "p2"} {
		for _, s := range c.secrets[p] {
			if inst, ok := vtpmsecret.InstanceOf(s.name); ok && inst != fakeUUID(9, 3) && (len(s.consumers) != 1 || s.consumers[0] != vtpmsecret.NovaConsumer(inst)) {
				t.Errorf("%s: %+v", s.name, s.consumers)
			}
		}
	}
	// a rerun writes nothing
	r = gatherProtect(t, c, src, false)
	if s := r.Summary; s.Already != 4 || s.Registered != 0 || c.count("consumer-post") != 3 {
		t.Errorf("rerun %+v, %d writes in all", s, c.count("consumer-post"))
	}
	if tb := r.Table(); !strings.Contains(strings.Join(tb.Footer, "\n"), "already protected 4") || !strings.Contains(strings.Join(tb.Footer, "\n"), "server ERROR") {
		t.Errorf("footer %q", tb.Footer)
	}
}

// TestProtectFailedWrite: a write refused (the secret went away between
// list and write) is that secret's failure; the others are written.
func TestProtectFailedWrite(t *testing.T) {
	c, src := protectCloud(t, "1.2")
	km, _ := src.KeyManager(context.Background(), "p1")
	src.API, _ = barbican.DetectAPI(context.Background(), km)
	f, err := Gather(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	r := vtpmsecret.PlanProtect(f, vtpmsecret.Audit(f, now), false, nil)
	c.secrets["p2"] = nil // gone before the write
	Protect(context.Background(), &r, src.KeyManager, 2)
	if s := r.Summary; s.Registered != 2 || s.Failed != 1 {
		t.Errorf("%+v", s)
	}
	for _, a := range r.Secrets {
		if a.ProjectID == "p2" && (a.Action != vtpmsecret.ActFailed || !strings.Contains(a.Detail, "404")) {
			t.Errorf("%+v", a)
		}
	}
}

// TestNoConsumersBefore11: at 1.0 the list is asked without a
// microversion (the strict fake fails any) and no consumer is claimed.
func TestNoConsumersBefore11(t *testing.T) {
	c, src := protectCloud(t, "")
	f, err := Gather(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	res := vtpmsecret.Audit(f, now)
	if res.Summary.Consumers != nil || res.KeyManagerAPI != "" || res.Guests[0].Protection != "" {
		t.Errorf("%+v", res.Summary)
	}
	for _, g := range res.Guests {
		for _, fd := range g.Findings {
			if fd.Check == "SECRET-CONSUMER" {
				t.Errorf("%s: %+v", g.ServerID, fd)
			}
		}
	}
	if c.count("versions") != 0 {
		t.Error("Gather itself never asks for versions: the caller does, once")
	}
}
