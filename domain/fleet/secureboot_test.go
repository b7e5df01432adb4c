package fleet

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/metrics"
	"github.com/vtpmctl/vtpmctl/internal/output"
)

// TestFleetSecureBootCounts: with host check reports, each host counts
// its vTPM guests by the certificates their NVRAM enrols and by remedy
// (a guest its host's report lacks, or on a host without one, is
// unknown), the summary adds the hosts up, and the table, the summary
// view and the gauges say the same; without reports there is no count
// (it would claim every guest fine).
func TestFleetSecureBootCounts(t *testing.T) {
	tpm := []string{"COMPUTE_SECURITY_TPM_2_0"}
	hosts := []Host{{Host: "a", Hypervisor: "a.x", State: "up", Status: "enabled", Traits: tpm}, {Host: "b", Hypervisor: "b.x", State: "up", Status: "enabled", Traits: tpm}}
	view := func(c hostcheck.Certs, kept hostcheck.TriState) *hostcheck.GuestBitLocker {
		return &hostcheck.GuestBitLocker{Risk: hostcheck.RiskMedium, Certs: c, NVRAMKept: kept, CertsRemedy: hostcheck.CertRemedyOf(c, kept)}
	}
	rep := hostcheck.Report{Host: "a", Traits: tpm, VTPMGuests: []hostcheck.Guest{
		{UUID: "s1", BitLocker: view(hostcheck.Certs2011, hostcheck.Yes)},
		{UUID: "s2", BitLocker: view(hostcheck.CertsPartial, hostcheck.Yes)},
		{UUID: "s3", BitLocker: view(hostcheck.Certs2023, hostcheck.Yes)},
		{UUID: "s4", BitLocker: &hostcheck.GuestBitLocker{Certs: hostcheck.Certs2011, NVRAMKept: hostcheck.No}}, // before certs_remedy
	}}
	guests := []nova.VTPMGuest{{ServerID: "s1", Name: "ceo-laptop", Host: "a"}, {ServerID: "s2", Host: "a"}, {ServerID: "s3", Host: "a"}, {ServerID: "s4", Host: "a"},
		{ServerID: "s5", Name: "new-vm", Host: "a"}, {ServerID: "s6", Name: "hr-db", Host: "b"}}
	reps, sum := AuditHosts(nova.Gazpacho, hosts, map[string]hostcheck.Report{"a.x": rep}, nova.NewGuestList(guests...))

	a := map[hostcheck.Certs]int{"2011": 2, "partial": 1, "2023": 1, "unknown": 1, "unreadable": 0, "other": 0, "no-keys": 0, "no-nvram": 0}
	aRem := map[hostcheck.CertRemedy]int{"update-nvram": 2, "package-update": 1, "unknown": 1, "none": 1}
	if c := reps[0].SecureBoot; c == nil || !reflect.DeepEqual(c.ByCerts, a) || !reflect.DeepEqual(c.ByRemedy, aRem) {
		t.Errorf("host a: %+v\nwant %v %v", c, a, aRem)
	}
	if c := reps[1].SecureBoot; c == nil || c.ByCerts[hostcheck.CertsUnknown] != 1 || c.ByRemedy[hostcheck.CertRemedyUnknown] != 1 || c.ByCerts[hostcheck.Certs2011] != 0 {
		t.Errorf("host b (no report): %+v", c)
	}
	if c := sum.SecureBoot; c == nil || c.ByCerts[hostcheck.CertsUnknown] != 2 || c.ByCerts[hostcheck.Certs2011] != 2 || c.ByRemedy[hostcheck.CertRemedyUnknown] != 2 || c.ByRemedy[hostcheck.CertRemedyUpdateNVRAM] != 2 {
		t.Errorf("summary %+v", c)
	}

	res := NewResult(nova.Gazpacho, reps, sum)
	js, _ := json.Marshal(res)
	for _, want := range []string{`"secure_boot_guests":{"by_certificates":{"2011":2,"2023":1,"no-keys":0,"no-nvram":0,"other":0,"partial":1,"unknown":2,"unreadable":0},"by_remedy":{"none":1,"package-update":1,"unknown":2,"update-nvram":2}}`,
		`"at_risk_guests":[`, `"secure_boot_guests":{"by_certificates":{"2011":2,"2023":1,"no-keys":0,"no-nvram":0,"other":0,"partial":1,"unknown":1,`} {
		if !strings.Contains(string(js), want) {
			t.Errorf("JSON lacks %s:\n%s", want, js)
		}
	}
	if foot := strings.Join(res.Table().Footer, "\n"); !strings.Contains(foot, "vTPM guests by 2023 Secure Boot certificates: 2 2011, 1 partial, 0 unreadable, 2 unknown, 1 2023, 0 other, 0 no-keys, 0 no-nvram; to get them: 1 package-update, 2 update-nvram, 2 unknown, 1 none") {
		t.Errorf("footer %s", foot)
	}
	var b strings.Builder
	if err := output.Write(&b, output.Options{Format: "table"}, res.SummaryView()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"secure_boot_certs_2011", "secure_boot_certs_no_keys", "secure_boot_remedy_update_nvram", "secure_boot_remedy_package_update"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary view lacks %s:\n%s", want, b.String())
		}
	}

	got, text := secureBootGauges(t, res)
	for key, want := range map[string]float64{
		"vtpmctl_fleet_secure_boot_certs_guests 2011": 2, "vtpmctl_fleet_secure_boot_certs_guests unknown": 2, "vtpmctl_fleet_secure_boot_certs_guests no-keys": 0,
		"vtpmctl_fleet_secure_boot_remedy_guests update-nvram": 2, "vtpmctl_fleet_secure_boot_remedy_guests package-update": 1, "vtpmctl_fleet_secure_boot_remedy_guests none": 1,
		"vtpmctl_host_secure_boot_certs_guests a 2011": 2, "vtpmctl_host_secure_boot_certs_guests b unknown": 1, "vtpmctl_host_secure_boot_certs_guests b 2011": 0,
		"vtpmctl_host_secure_boot_remedy_guests a update-nvram": 2, "vtpmctl_host_secure_boot_remedy_guests a package-update": 1, "vtpmctl_host_secure_boot_remedy_guests b unknown": 1,
	} {
		if v, ok := got[key]; !ok || v != want {
			t.Errorf("%s = %v (%v), want %v\n%s", key, v, ok, want, text)
		}
	}
	for _, name := range []string{"ceo-laptop", "new-vm", "hr-db", "s1"} {
		if strings.Contains(text, name) {
			t.Errorf("metrics name guest %s", name)
		}
	}

	reps, sum = AuditHosts(nova.Gazpacho, hosts, nil, nova.NewGuestList(guests...))
	res = NewResult(nova.Gazpacho, reps, sum)
	_, text = secureBootGauges(t, res)
	js, _ = json.Marshal(res)
	if sum.SecureBoot != nil || reps[0].SecureBoot != nil || strings.Contains(text, "secure_boot") || strings.Contains(string(js), "secure_boot_guests") ||
		strings.Contains(strings.Join(res.Table().Footer, "\n"), "Secure Boot certificates") {
		t.Errorf("no reports, yet counts: %+v\n%s", sum.SecureBoot, text)
	}
}

// secureBootGauges: series keyed by name and their host, certs and
// remedy labels.
func secureBootGauges(t *testing.T, r *Result) (map[string]float64, string) {
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
			l := map[string]string{}
			for _, x := range m.GetLabel() {
				l[x.GetName()] = x.GetValue()
			}
			key := name
			for _, k := range []string{"host", "certs", "remedy"} { // host first, whatever the text's order
				if v, ok := l[k]; ok {
					key += " " + v
				}
			}
			got[key] = m.GetGauge().GetValue()
		}
	}
	return got, buf.String()
}
