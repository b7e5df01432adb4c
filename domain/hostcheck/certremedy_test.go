package hostcheck

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/vtpmctl/vtpmctl/domain/advice"
	"github.com/vtpmctl/vtpmctl/internal/metrics"
)

// TestCertRemedyOf: every class under every NVRAM-KEPT verdict. Only a
// guest lacking 2023 certificates needs work, and which work is its
// host's: kept → its own file, recreated → the template, unknown → unknown.
func TestCertRemedyOf(t *testing.T) {
	const (
		upd = CertRemedyUpdateNVRAM
		pkg = CertRemedyPackageUpdate
		unk = CertRemedyUnknown
		non = CertRemedyNone
	)
	// kept yes, no, unknown, "" (a BIOS guest's: nothing to keep)
	want := map[Certs][4]CertRemedy{
		Certs2011:       {upd, pkg, unk, unk},
		CertsPartial:    {upd, pkg, unk, unk},
		Certs2023:       {non, non, non, non},
		CertsOther:      {non, non, non, non},
		CertsNoKeys:     {non, non, non, non},
		CertsNoNVRAM:    {non, non, non, non},
		CertsUnreadable: {unk, unk, unk, unk},
		CertsUnknown:    {unk, unk, unk, unk},
		"":              {unk, unk, unk, unk}, // a report without a class
		"2031":          {unk, unk, unk, unk}, // a class a later vtpmctl adds
	}
	for _, k := range CertsClasses {
		if _, ok := want[k]; !ok {
			t.Errorf("class %s has no case", k)
		}
	}
	for c, w := range want {
		for i, kept := range []TriState{Yes, No, Unknown, ""} {
			if got := CertRemedyOf(c, kept); got != w[i] {
				t.Errorf("certs %q, NVRAM kept %q: %s, want %s", c, kept, got, w[i])
			}
		}
	}
}

// TestAssessCertRemedy: the remedy reaches the view and its JSON, and
// the reason says why the KEK needs the host: Windows' own update cannot
// add it, only db entries signed by an enrolled KEK.
func TestAssessCertRemedy(t *testing.T) {
	pk := "Debian UEFI Secure Boot (PK/KEK key)"
	v2011 := nvramOf(t, varsFile(t, pk, kek2011, db2011))
	dbOnly := nvramOf(t, varsFile(t, pk, kek2023, db2011)) // the KEK there, db still 2011
	cases := []struct {
		name   string
		n      guestNVRAM
		kept   TriState
		remedy CertRemedy
		why    []string // in the reasons
		not    string   // never in them
	}{
		{"2011, kept: its own file", v2011, Yes, CertRemedyUpdateNVRAM,
			[]string{"Windows cannot add the KEK itself", "cannot take future db/dbx updates until the KEK is added offline on the host", "changes PCR 7"}, "rewrites KEK"},
		{"2011, recreated: the template", v2011, No, CertRemedyPackageUpdate, []string{"recreates the NVRAM from the template", "Windows cannot add the KEK itself"}, "rewrites KEK"},
		{"2011, unknown host", v2011, Unknown, CertRemedyUnknown, []string{"keeps the NVRAM is unknown"}, "rewrites KEK"},
		{"KEK there, db lacking", dbOnly, Yes, CertRemedyUpdateNVRAM,
			[]string{"db/KEK lack the 2023 certificates (db Windows UEFI CA 2023, db Microsoft UEFI CA 2023)", "only db updates signed by a KEK the NVRAM enrols apply"}, "cannot add the KEK"},
		{"BIOS guest", guestNVRAM{}, Yes, CertRemedyNone, []string{"BIOS guest"}, "KEK"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := assessBitLocker(c.n, Yes, c.kept)
			why := strings.Join(b.Reasons, " | ")
			if b.CertsRemedy != c.remedy || b.RemedyOfCerts() != c.remedy {
				t.Errorf("remedy %s, want %s", b.CertsRemedy, c.remedy)
			}
			for _, w := range c.why {
				if !strings.Contains(why, w) {
					t.Errorf("reasons lack %q: %s", w, why)
				}
			}
			if strings.Contains(why, c.not) {
				t.Errorf("reasons say %q: %s", c.not, why)
			}
			js, _ := json.Marshal(b)
			if !strings.Contains(string(js), `"certs_remedy":"`+string(c.remedy)+`"`) {
				t.Errorf("JSON %s", js)
			}
		})
	}
}

// TestRemedyOfOldReport: a report written before certs_remedy still
// counts by remedy, decided from the class and verdict it does carry.
func TestRemedyOfOldReport(t *testing.T) {
	var b GuestBitLocker
	if err := json.Unmarshal([]byte(`{"risk":"medium","certificates":"2011","nvram_kept":"no","vtpm_state_kept":"yes"}`), &b); err != nil {
		t.Fatal(err)
	}
	if b.CertsRemedy != "" || b.RemedyOfCerts() != CertRemedyPackageUpdate {
		t.Errorf("old report: %q, derived %q", b.CertsRemedy, b.RemedyOfCerts())
	}
}

// TestCountSecureBoot: every class and remedy is a key (0 included); a
// guest without a view, a class or a remedy this version does not know
// count as unknown, never as a key of their own; Merge adds.
func TestCountSecureBoot(t *testing.T) {
	guests := []Guest{
		{BitLocker: &GuestBitLocker{Certs: Certs2011, NVRAMKept: Yes, CertsRemedy: CertRemedyUpdateNVRAM}},
		{BitLocker: &GuestBitLocker{Certs: Certs2011, NVRAMKept: No}}, // an old report: derived
		{BitLocker: &GuestBitLocker{Certs: Certs2023, CertsRemedy: CertRemedyNone}},
		{BitLocker: &GuestBitLocker{Certs: "2031", CertsRemedy: "reflash"}},
		{},
	}
	c := CountSecureBoot(guests)
	wantCerts := map[Certs]int{Certs2011: 2, CertsPartial: 0, CertsUnreadable: 0, CertsUnknown: 2, Certs2023: 1, CertsOther: 0, CertsNoKeys: 0, CertsNoNVRAM: 0}
	wantRemedy := map[CertRemedy]int{CertRemedyPackageUpdate: 1, CertRemedyUpdateNVRAM: 1, CertRemedyUnknown: 2, CertRemedyNone: 1}
	if !reflect.DeepEqual(c.ByCerts, wantCerts) || !reflect.DeepEqual(c.ByRemedy, wantRemedy) {
		t.Errorf("counts %v %v\nwant %v %v", c.ByCerts, c.ByRemedy, wantCerts, wantRemedy)
	}
	c.Merge(c)
	if c.ByCerts[Certs2011] != 4 || c.ByRemedy[CertRemedyUnknown] != 4 || c.ByCerts[CertsOther] != 0 {
		t.Errorf("merged %v %v", c.ByCerts, c.ByRemedy)
	}
	js, _ := json.Marshal(NewSecureBootCounts())
	if want := `{"by_certificates":{"2011":0,"2023":0,"no-keys":0,"no-nvram":0,"other":0,"partial":0,"unknown":0,"unreadable":0},"by_remedy":{"none":0,"package-update":0,"unknown":0,"update-nvram":0}}`; string(js) != want {
		t.Errorf("JSON %s\nwant %s", js, want)
	}
}

// TestSecureBootGauges: host check's gauges count its guests by class and
// by remedy, every label value a series (zeros too), the host's name
// escaped, no guest's name or UUID.
func TestSecureBootGauges(t *testing.T) {
	host := "cmp1\"} evil{x=\"\n"
	r := Report{Host: host, VTPMGuests: []Guest{
		{UUID: "u1", Name: "ceo-laptop", BitLocker: &GuestBitLocker{Certs: Certs2011, NVRAMKept: Yes, CertsRemedy: CertRemedyUpdateNVRAM}},
		{UUID: "u2", Name: "hr-db", BitLocker: &GuestBitLocker{Certs: Certs2011, NVRAMKept: Yes, CertsRemedy: CertRemedyUpdateNVRAM}},
		{UUID: "u3", Name: "web", BitLocker: &GuestBitLocker{Certs: CertsNoNVRAM, CertsRemedy: CertRemedyNone}},
		{UUID: "u4", Name: "no-view"},
	}}
	var buf bytes.Buffer
	if err := metrics.Write(&buf, r.Gauges()); err != nil {
		t.Fatal(err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	series := func(name, label string) map[string]float64 {
		got := map[string]float64{}
		for _, m := range fams[name].GetMetric() {
			l := map[string]string{}
			for _, x := range m.Label {
				l[x.GetName()] = x.GetValue()
			}
			if len(l) != 2 || l["host"] != host {
				t.Errorf("%s labels %v", name, l)
			}
			got[l[label]] = m.GetGauge().GetValue()
		}
		return got
	}
	if got, want := series("vtpmctl_host_secure_boot_certs_guests", "certs"), map[string]float64{"2011": 2, "partial": 0, "unreadable": 0, "unknown": 1,
		"2023": 0, "other": 0, "no-keys": 0, "no-nvram": 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("certs %v, want %v", got, want)
	}
	if got, want := series("vtpmctl_host_secure_boot_remedy_guests", "remedy"), map[string]float64{"package-update": 0, "update-nvram": 2, "unknown": 1, "none": 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("remedy %v, want %v", got, want)
	}
	if !strings.Contains(buf.String(), "# HELP vtpmctl_host_secure_boot_remedy_guests vTPM guests of the host by what brings their NVRAM to the 2023 certificates") {
		t.Errorf("help:\n%s", buf.String())
	}
	for _, name := range []string{"ceo-laptop", "hr-db", "u1", "no-view"} {
		if strings.Contains(buf.String(), name) {
			t.Errorf("metrics name guest %s", name)
		}
	}
}

// TestBitLockerCheckRemedyNamesUpdate: BITLOCKER-RISK's medium advice is
// the offline update in the caller's words, no longer Windows' own.
func TestBitLockerCheckRemedyNamesUpdate(t *testing.T) {
	f := healthyFacts(t)
	f.Words = words{}
	f.Libvirt.Domains = append(f.Libvirt.Domains, mustDomain(t, domainXML(guestUUID, true)))
	f.GuestState = map[string]bool{"/var/lib/libvirt/swtpm/" + guestUUID + "/tpm2": true}
	f.GuestNVRAM = map[string]guestNVRAM{guestUUID: nvramOf(t, varsFile(t, "PK", kek2011, db2011))}
	f.derive()
	c := checkBitLocker(&f)[0]
	if !strings.Contains(c.Remedy, "where db/KEK lack 2023 certificates, escrow the recovery key or suspend BitLocker, stop the guest and add them to its NVRAM on this host (prog host secure-boot update; Windows cannot add the KEK itself)") ||
		strings.Contains(c.Remedy, "let Windows install") {
		t.Errorf("remedy %q (%+v)", c.Remedy, c)
	}
}

// words spells advice as a test's program.
type words struct{}

func (words) Option(o advice.Option) string   { return "--" + string(o) }
func (words) Command(c advice.Command) string { return "prog " + string(c) }

// TestTemplateRemedyNamesUpdate: SECURE-BOOT-CERTS on a 2011-only template
// says where a template with the 2023 certificates comes from, and that
// existing guests get them offline on the host (the caller's command),
// not from Windows.
func TestTemplateRemedyNamesUpdate(t *testing.T) {
	n := nvramOf(t, varsFile(t, "Debian UEFI Secure Boot (PK/KEK key)", kek2011, db2011))
	st, _, remedy := certStatus("template", n.SB, expiryOf("Microsoft Corporation KEK CA 2011"), "prog host secure-boot update")
	for _, w := range []string{"ovmf 2026.08, forky", "Windows cannot add the KEK", "(prog host secure-boot update)"} {
		if st != Warn || !strings.Contains(remedy, w) {
			t.Errorf("%s, remedy lacks %q: %s", st, w, remedy)
		}
	}
	if strings.Contains(remedy, "inside Windows") {
		t.Errorf("remedy still sends existing guests to Windows: %s", remedy)
	}
}
