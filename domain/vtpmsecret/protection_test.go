package vtpmsecret

import (
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/metrics"
)

// TestAuditConsumers: each guest's secret is protected, unprotected or
// has a nova/instance consumer of another or a deleted server; the fleet
// count is in the summary, the table and -f prometheus, and a protected
// orphan says to remove the consumer first.
func TestAuditConsumers(t *testing.T) {
	for _, tc := range []struct {
		name      string
		consumers []Consumer
		state     Protection
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
			f.Secrets.mut(0).Consumers = tc.consumers
			r := Audit(f, now)
			got := finding(r, "SECRET-CONSUMER")
			if r.Guests[0].Protection != tc.state || string(got.Status) != tc.status || !strings.Contains(got.Message, tc.msg) {
				t.Errorf("%s %s %q", r.Guests[0].Protection, got.Status, got.Message)
			}
			c := r.Summary.Consumers
			n := map[Protection]int{Protected: c.Protected, Unprotected: c.Unprotected, Mismatched: c.Mismatched}
			if n[tc.state] != 1 || c.Protected+c.Unprotected+c.Mismatched != 1 || r.Summary.Failed != 0 || r.KeyManagerAPI != "1.1" {
				t.Errorf("summary %+v %+v", r.Summary, c)
			}
			foot := r.Table().FooterLines()
			if last := foot[len(foot)-1]; !strings.Contains(last, string(tc.state)+" 1") && !strings.Contains(last, "mismatched consumer 1") {
				t.Errorf("footer %q", last)
			}
			var prom strings.Builder
			if err := writeGauges(&prom, &r); err != nil || !strings.Contains(prom.String(), `vtpmctl_secrets_guests_by_protection{protection="`+string(tc.state)+`"} 1`) {
				t.Errorf("%v\n%s", err, prom.String())
			}
		})
	}
	// 1.2 names Barbican's own refusal; a protected orphan keeps its consumer
	f := baseFacts()
	f.API = API{1, 2}
	f.Secrets.mut(0).Consumers = []Consumer{NovaConsumer("srv1")}
	f.Secrets.Add(Secret{ID: "s9", InstanceID: "gone", ProjectID: "p1", Consumers: []Consumer{NovaConsumer("gone")}})
	r := Audit(f, now)
	if got := finding(r, "SECRET-CONSUMER"); !strings.Contains(got.Message, "Barbican (API 1.2) refuses") {
		t.Error(got.Message)
	}
	if len(r.Orphans) != 1 || !strings.Contains(r.Orphans[0].Reason, "protected by consumer(s) nova/instance/gone: remove them first") {
		t.Errorf("%+v", r.Orphans)
	}
}

func writeGauges(w *strings.Builder, r *Result) error { return metrics.Write(w, r.Gauges()) }
