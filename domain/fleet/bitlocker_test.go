package fleet

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/metrics"
)

// TestFleetBitLocker: the at-risk guests take the risk their host's
// report gives them (by UUID); a guest the report lacks, or on a host
// without a report, is unknown with why; the summary, the table and the
// gauges count by level, never naming a guest. Without any report there
// is no BitLocker count at all (it would claim zero high).
func TestFleetBitLocker(t *testing.T) {
	tpm := []string{"COMPUTE_SECURITY_TPM_2_0"}
	hosts := []Host{{Host: "a", Hypervisor: "a.x", State: "up", Status: "enabled", Traits: tpm}, {Host: "b", Hypervisor: "b.x", State: "up", Status: "enabled", Traits: tpm}}
	rep := hostcheck.Report{Host: "a", Traits: tpm, Checks: []hostcheck.Check{{ID: "BITLOCKER-RISK", Status: hostcheck.Warn, Message: "1 high"}},
		VTPMGuests: []hostcheck.Guest{{UUID: "s1", Name: "instance-1", BitLocker: &hostcheck.GuestBitLocker{Risk: hostcheck.RiskHigh, Reasons: []string{"NVRAM-KEPT"}}},
			{UUID: "s9", Name: "gone", BitLocker: &hostcheck.GuestBitLocker{Risk: hostcheck.RiskLow}}}}
	guests := []nova.VTPMGuest{{ServerID: "s1", Name: "ceo-laptop", Host: "a"}, {ServerID: "s2", Name: "new-vm", Host: "a"}, {ServerID: "s3", Name: "hr-db", Host: "b"}}
	reps, sum := AuditHosts(nova.Epoxy, hosts, map[string]hostcheck.Report{"a.x": rep}, nova.NewGuestList(guests...))

	if want := map[hostcheck.Risk]int{hostcheck.RiskHigh: 1, hostcheck.RiskUnknown: 2}; !reflect.DeepEqual(sum.BitLocker, want) {
		t.Errorf("summary %v, want %v", sum.BitLocker, want)
	}
	a, b := reps[0], reps[1]
	if g := a.AtRisk[0]; g.BitLockerRisk != hostcheck.RiskHigh || g.BitLockerReasons[0] != "NVRAM-KEPT" || a.VTPMGuests[0].BitLocker == nil {
		t.Errorf("s1 %+v %+v", g, a.VTPMGuests[0])
	}
	if g := a.AtRisk[1]; g.BitLockerRisk != hostcheck.RiskUnknown || !strings.Contains(g.BitLockerReasons[0], "not in the host's check report") {
		t.Errorf("s2 %+v", g)
	}
	if g := b.AtRisk[0]; g.BitLockerRisk != hostcheck.RiskUnknown || g.BitLockerReasons[0] != "no host check report for this host" {
		t.Errorf("s3 %+v", g)
	}
	if c := find(&a, "BITLOCKER-RISK"); c.Status != hostcheck.Warn {
		t.Errorf("the host's BITLOCKER-RISK finding must reach the fleet view: %+v", c)
	}
	res := NewResult(nova.Epoxy, reps, sum)
	if foot := strings.Join(res.Table().Footer, "\n"); !strings.Contains(foot, "BitLocker-recovery risk (from the host check reports): 1 high, 0 medium, 2 unknown, 0 low") {
		t.Errorf("footer %s", foot)
	}
	got, text := gauges(t, res)
	for key, want := range map[string]float64{"vtpmctl_fleet_bitlocker_risk_guests high": 1, "vtpmctl_fleet_bitlocker_risk_guests unknown": 2,
		"vtpmctl_fleet_bitlocker_risk_guests low": 0, "vtpmctl_host_bitlocker_risk_guests a high": 1, "vtpmctl_host_bitlocker_risk_guests a unknown": 1,
		"vtpmctl_host_bitlocker_risk_guests b unknown": 1, "vtpmctl_host_bitlocker_risk_guests b high": 0} {
		if v, ok := got[key]; !ok || v != want {
			t.Errorf("%s = %v (%v), want %v\n%s", key, v, ok, want, text)
		}
	}
	for _, name := range []string{"ceo-laptop", "new-vm", "hr-db", "instance-1"} {
		if strings.Contains(text, name) {
			t.Errorf("metrics name guest %s", name)
		}
	}

	reps, sum = AuditHosts(nova.Epoxy, hosts, nil, nova.NewGuestList(guests...))
	got, text = gauges(t, NewResult(nova.Epoxy, reps, sum))
	if sum.BitLocker != nil || reps[0].AtRisk[0].BitLockerRisk != "" || strings.Contains(text, "bitlocker") {
		t.Errorf("no reports: %v %+v\n%s", sum.BitLocker, reps[0].AtRisk[0], text)
	}
}

// gauges: series keyed by name and their host and level labels.
func gauges(t *testing.T, r *Result) (map[string]float64, string) {
	var buf bytes.Buffer
	if err := metrics.Write(&buf, r.Gauges()); err != nil {
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
				if l.GetName() == "host" || l.GetName() == "level" {
					key += " " + l.GetValue()
				}
			}
			got[key] = m.GetGauge().GetValue()
		}
	}
	return got, buf.String()
}
