package fleet

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/metrics"
)

// TestFleetGauges: hosts audit's series parse back; the guests at risk
// are counted per host; a host with two hypervisors (ironic) is one
// host; the summary and the run's timestamp are there.
func TestFleetGauges(t *testing.T) {
	Now = func() time.Time { return time.Unix(1764547200, 0) }
	defer func() { Now = time.Now }()
	tpm := []string{"COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_TIS"}
	hosts := []Host{{Host: "a", Hypervisor: "a1", State: "up", Status: "enabled", Traits: tpm}, {Host: "a", Hypervisor: "a2", State: "up", Status: "enabled", Traits: tpm},
		{Host: "b", Hypervisor: "b", State: "down", Status: "enabled", Traits: []string{}}}
	reps, sum := AuditHosts(nova.Dalmatian, hosts, nil, nova.NewGuestList([]nova.VTPMGuest{{ServerID: "s1", Host: "a", Mode: nova.SecretUser}, {ServerID: "s2", Host: "a", Mode: nova.SecretUser}}...))
	var buf bytes.Buffer
	if err := metrics.Write(&buf, NewResult(nova.Dalmatian, reps, sum).Gauges()); err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	got := map[string]float64{}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			key := name
			for _, l := range m.GetLabel() {
				if l.GetName() == "host" || l.GetName() == "capability" {
					key += " " + l.GetValue()
				}
			}
			got[key] += m.GetGauge().GetValue()
		}
	}
	for key, want := range map[string]float64{"vtpmctl_host_vtpm_guests_at_risk a": 2, "vtpmctl_host_vtpm_guests_at_risk b": 0,
		"vtpmctl_fleet_host_usable a": 1, "vtpmctl_fleet_host_usable b": 0, "vtpmctl_fleet_hosts": 3,
		"vtpmctl_fleet_hosts_capable tpm_2_0": 2, "vtpmctl_host_trait a": 2, "vtpmctl_last_run_timestamp_seconds": 1764547200} {
		if got[key] != want {
			t.Errorf("%s = %v, want %v\n%s", key, got[key], want, buf.String())
		}
	}
}
