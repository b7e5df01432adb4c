package barbican

import (
	"context"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/metrics"
)

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
		a, err := DetectAPI(context.Background(), km)
		if err != nil || a.String() != tc.want || a.HasConsumers() != tc.consumers || a.RefusesDelete() != tc.refuses || c.total() != 1 {
			t.Errorf("api %q: %v %v (%d requests)", tc.api, a, err, c.total())
		}
	}
	if got := ConsumersUnavailable(API{1, 0}); !strings.Contains(got, "not available before key-manager API 1.1") || !strings.HasSuffix(got, "API is 1.0") {
		t.Error(got)
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
		if s := &c.secrets["p1"][i]; s.name == NamePrefix+fakeUUID(9, 2) {
			s.consumers = []Consumer{NovaConsumer(fakeUUID(9, 2))}
		}
	}
	src := c.sources("p1", "p2")
	src.ReadACLs = false
	var guests []Guest
	for _, i := range []int{0, 1, 2} { // 3 is the orphan
		guests = append(guests, Guest{ServerID: fakeUUID(9, i), Name: "win", ProjectID: "p1", UserID: "alice", Mode: "user"})
	}
	guests = append(guests, Guest{ServerID: fakeUUID(9, 10), ProjectID: "p2", UserID: "bob", Mode: "user"})
	src.Inventory = &nova.Inventory{Guests: guests}
	return c, src
}

func gatherProtect(t *testing.T, c *fakeCloud, src Sources, dry bool) ProtectResult {
	t.Helper()
	km, _ := src.KeyManager(context.Background(), "p1")
	api, err := DetectAPI(context.Background(), km)
	if err != nil {
		t.Fatal(err)
	}
	src.API = api
	f, err := Gather(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	r := PlanProtect(f, Audit(f, now), dry, nil)
	if !dry {
		Protect(context.Background(), &r, src.KeyManager, 4)
	}
	return r
}

func TestProtect(t *testing.T) {
	c, src := protectCloud(t, "1.1")
	// --dry-run: the three unprotected guests, nothing written
	r := gatherProtect(t, c, src, true)
	if s := r.Summary; s.WouldRegister != 3 || s.Already != 1 || s.NotProtected != 1 || s.Registered != 0 || c.count("consumer-post") != 0 {
		t.Fatalf("dry run %+v, %d writes", s, c.count("consumer-post"))
	}
	// the orphan is reported, never protected
	for _, a := range r.Secrets {
		if a.ServerID == fakeUUID(9, 3) && (a.Action != ActNotProtected || !strings.Contains(a.Detail, "orphan: instance "+fakeUUID(9, 3)+" no longer exists")) {
			t.Errorf("orphan %+v", a)
		}
	}
	// --server: that guest's secret only, no orphan
	km, _ := src.KeyManager(context.Background(), "p1")
	src.API, _ = DetectAPI(context.Background(), km)
	f, err := Gather(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	if one := PlanProtect(f, Audit(f, now), true, map[string]bool{fakeUUID(9, 1): true}); len(one.Secrets) != 1 || one.Secrets[0].ServerID != fakeUUID(9, 1) || one.Summary.WouldRegister != 1 {
		t.Errorf("--server: %+v", one.Secrets)
	}
	// --server naming no guest and no secret's instance: said, by ID (the
	// command exits 1 on it; before: "registered 0, failed 0", exit 0)
	unknown := fakeUUID(7, 7)
	if r := PlanProtect(f, Audit(f, now), true, map[string]bool{unknown: true, fakeUUID(9, 1): true}); len(r.Unmatched) != 1 || r.Unmatched[0] != unknown || r.Summary.WouldRegister != 1 {
		t.Errorf("--server %s: unmatched %v, %+v", unknown, r.Unmatched, r.Summary)
	}
	// the writes: one per unprotected secret, with its project's token
	r = gatherProtect(t, c, src, false)
	if s := r.Summary; s.Registered != 3 || s.Failed != 0 || c.count("consumer-post") != 3 {
		t.Fatalf("protect %+v, %d writes", s, c.count("consumer-post"))
	}
	for _, p := range []string{"p1", "p2"} {
		for _, s := range c.secrets[p] {
			if inst, ok := InstanceOf(s.name); ok && inst != fakeUUID(9, 3) && (len(s.consumers) != 1 || s.consumers[0] != NovaConsumer(inst)) {
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
	src.API, _ = DetectAPI(context.Background(), km)
	f, err := Gather(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	r := PlanProtect(f, Audit(f, now), false, nil)
	c.secrets["p2"] = nil // gone before the write
	Protect(context.Background(), &r, src.KeyManager, 2)
	if s := r.Summary; s.Registered != 2 || s.Failed != 1 {
		t.Errorf("%+v", s)
	}
	for _, a := range r.Secrets {
		if a.ProjectID == "p2" && (a.Action != ActFailed || !strings.Contains(a.Detail, "404")) {
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
	res := Audit(f, now)
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

// TestAuditConsumers: each guest's secret is protected, unprotected or
// has a nova/instance consumer of another or a deleted server; the fleet
// count is in the summary, the table and -f prometheus, and a protected
// orphan says to remove the consumer first.
func TestAuditConsumers(t *testing.T) {
	for _, tc := range []struct {
		name      string
		consumers []Consumer
		state     string
		status    string
		msg       string
	}{
		{"protected", []Consumer{NovaConsumer("srv1")}, Protected, "pass", "refuses to delete it without --force"},
		{"unprotected", []Consumer{}, Unprotected, "pass", "no consumer names this server"},
		{"other service only", []Consumer{{"glance", "image", "i1"}}, Unprotected, "pass", "other consumers: glance/image/i1"},
		{"another server", []Consumer{NovaConsumer("srv2")}, Mismatched, "warn", "another server, win2 (srv2)"},
		{"a deleted server", []Consumer{NovaConsumer("gone")}, Mismatched, "warn", "server gone, which no longer exists"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := baseFacts()
			f.API = API{1, 1}
			f.OtherServers = map[string]nova.OtherServer{"srv2": {Name: "win2"}}
			f.Secrets[0].Consumers = tc.consumers
			r := Audit(f, now)
			got := finding(r, "SECRET-CONSUMER")
			if r.Guests[0].Protection != tc.state || string(got.Status) != tc.status || !strings.Contains(got.Message, tc.msg) {
				t.Errorf("%s %s %q", r.Guests[0].Protection, got.Status, got.Message)
			}
			c := r.Summary.Consumers
			n := map[string]int{Protected: c.Protected, Unprotected: c.Unprotected, Mismatched: c.Mismatched}
			if n[tc.state] != 1 || c.Protected+c.Unprotected+c.Mismatched != 1 || r.Summary.Failed != 0 || r.KeyManagerAPI != "1.1" {
				t.Errorf("summary %+v %+v", r.Summary, c)
			}
			tb := r.Table()
			if last := tb.Footer[len(tb.Footer)-1]; !strings.Contains(last, tc.state+" 1") && !strings.Contains(last, "mismatched consumer 1") {
				t.Errorf("footer %q", last)
			}
			var prom strings.Builder
			if err := writeGauges(&prom, &r); err != nil || !strings.Contains(prom.String(), `vtpmctl_secrets_guests_by_protection{protection="`+tc.state+`"} 1`) {
				t.Errorf("%v\n%s", err, prom.String())
			}
		})
	}
	// 1.2 names Barbican's own refusal; a protected orphan keeps its consumer
	f := baseFacts()
	f.API = API{1, 2}
	f.Secrets[0].Consumers = []Consumer{NovaConsumer("srv1")}
	f.Secrets = append(f.Secrets, Secret{ID: "s9", InstanceID: "gone", ProjectID: "p1", Consumers: []Consumer{NovaConsumer("gone")}})
	r := Audit(f, now)
	if got := finding(r, "SECRET-CONSUMER"); !strings.Contains(got.Message, "Barbican (API 1.2) refuses") {
		t.Error(got.Message)
	}
	if len(r.Orphans) != 1 || !strings.Contains(r.Orphans[0].Reason, "protected by consumer(s) nova/instance/gone: remove them first") {
		t.Errorf("%+v", r.Orphans)
	}
}

func writeGauges(w *strings.Builder, r *Result) error { return metrics.Write(w, r.Gauges()) }
