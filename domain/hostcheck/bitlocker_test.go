package hostcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/vtpmctl/vtpmctl/domain/uefi"
	"github.com/vtpmctl/vtpmctl/internal/metrics"
)

// nvramOf reads a built variable file as gather would.
func nvramOf(t *testing.T, b []byte) guestNVRAM {
	n := guestNVRAM{Path: "/var/lib/libvirt/qemu/nvram/g_VARS.fd", SecureBoot: true}
	vs, err := uefi.ReadVarStore(b)
	if err == nil {
		n.SB, err = vs.SecureBoot()
	}
	n.Err = err
	return n
}

// TestAssessBitLocker: every level from NVRAM files built by
// uefi.BuildVarStore and the host's two verdicts.
func TestAssessBitLocker(t *testing.T) {
	pk := "Debian UEFI Secure Boot (PK/KEK key)"
	v2023 := varsFile(t, pk, kek2023, db2023)
	v2011 := varsFile(t, pk, kek2011, db2011)
	partial := varsFile(t, pk, kek2023, append([]string{"Windows UEFI CA 2023"}, db2011...))
	site := varsFile(t, "Site PK", []string{"Site KEK"}, []string{"Site db"})
	empty := uefi.BuildVarStore(nil)
	truncated := v2011[:100]
	badList := uefi.BuildVarStore([]uefi.Variable{{Name: "PK", Vendor: uefi.GlobalVariable, Data: []byte{1, 2, 3}}})
	cases := []struct {
		name        string
		n           guestNVRAM
		tpm, nvram  TriState
		risk        Risk
		certs       Certs
		missing     int
		reasonMatch string
	}{
		{"2023, all kept", nvramOf(t, v2023), "yes", "yes", RiskLow, Certs2023, 0, "the 2023 certificates are enrolled"},
		{"2011 only, all kept", nvramOf(t, v2011), "yes", "yes", RiskMedium, Certs2011, 3, "db/KEK lack the 2023 certificates (KEK Microsoft Corporation KEK 2K CA 2023, db Windows UEFI CA 2023, db Microsoft UEFI CA 2023)"},
		{"partial 2023", nvramOf(t, partial), "yes", "yes", RiskMedium, CertsPartial, 1, "db Microsoft UEFI CA 2023"},
		{"2023 but NVRAM reset", nvramOf(t, v2023), "yes", "no", RiskHigh, Certs2023, 0, "bug 2131730"},
		{"2023 but TPM wiped", nvramOf(t, v2023), "no", "yes", RiskHigh, Certs2023, 0, "wipes the vTPM state"},
		{"2011, NVRAM unknown: medium wins over unknown", nvramOf(t, v2011), "yes", "unknown", RiskMedium, Certs2011, 3, "keeps the NVRAM is unknown"},
		{"2023, TPM unknown", nvramOf(t, v2023), "unknown", "yes", RiskUnknown, Certs2023, 0, "keeps the vTPM state is unknown"},
		{"site keys", nvramOf(t, site), "yes", "yes", RiskLow, CertsOther, 3, "no Microsoft certificate"},
		{"empty store: no keys, kept", nvramOf(t, empty), "yes", "yes", RiskLow, CertsNoKeys, 0, "setup mode"},
		{"empty store: no keys, reset", nvramOf(t, empty), "yes", "no", RiskMedium, CertsNoKeys, 0, "PCR 7 stays the same"},
		{"truncated file", nvramOf(t, truncated), "yes", "yes", RiskUnknown, CertsUnreadable, 0, "NVRAM unreadable: firmware volume length 65608 does not fit the file's 100 bytes"},
		{"corrupt signature list", nvramOf(t, badList), "yes", "yes", RiskUnknown, CertsUnreadable, 0, "NVRAM unreadable: PK: signature list"},
		{"truncated and reset: high", nvramOf(t, truncated), "yes", "no", RiskHigh, CertsUnreadable, 0, "NVRAM-KEPT"},
		{"BIOS guest", guestNVRAM{}, "yes", "yes", RiskLow, CertsNoNVRAM, 0, "BIOS guest"},
		{"BIOS guest, TPM wiped", guestNVRAM{}, "no", "no", RiskHigh, CertsNoNVRAM, 0, "KEEP-TPM-STATE"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := assessBitLocker(c.n, c.tpm, c.nvram)
			why := strings.Join(b.Reasons, " | ")
			if b.Risk != c.risk || b.Certs != c.certs || len(b.Missing) != c.missing || !strings.Contains(why, c.reasonMatch) {
				t.Fatalf("got %s %s missing %v: %s\nwant %s %s %d containing %q", b.Risk, b.Certs, b.Missing, why, c.risk, c.certs, c.missing, c.reasonMatch)
			}
			if (b.Certs == CertsUnreadable) != (b.NVRAMError != "") {
				t.Errorf("unreadable %v but error %q", b.Certs == CertsUnreadable, b.NVRAMError)
			}
		})
	}
}

// nvramDomain: a vTPM guest with Secure Boot and its own NVRAM file.
func nvramDomain(uuid, name, nvram string) string {
	return fmt.Sprintf(`<domain type='kvm'><name>%s</name><uuid>%s</uuid>
<os><type machine='pc-q35-7.2'>hvm</type><loader readonly='yes' secure='yes' type='pflash'>/usr/share/OVMF/OVMF_CODE_4M.ms.fd</loader>
<nvram template='/usr/share/OVMF/OVMF_VARS_4M.ms.fd'>%s</nvram></os><devices>
<tpm model='tpm-crb'><backend type='emulator' version='2.0'><encryption secret='aaaaaaaa-1111-2222-3333-444444444444'/></backend></tpm></devices></domain>`, name, uuid, nvram)
}

// TestGuestBitLockerOnHost: the NVRAM files are read below the root
// through gather, and each guest's view reaches the report, its check
// and its JSON.
func TestGuestBitLockerOnHost(t *testing.T) {
	const dir = "/var/lib/libvirt/qemu/nvram/"
	tr := newTree(t)
	installNova(tr, "31.3.0", nova313) // keeps TPM state and NVRAM
	guests := []struct{ uuid, name string }{
		{"11111111-0000-0000-0000-000000000001", "win-2023"}, {"11111111-0000-0000-0000-000000000002", "win-2011"},
		{"11111111-0000-0000-0000-000000000003", "truncated"}, {"11111111-0000-0000-0000-000000000004", "escapes"},
		{"11111111-0000-0000-0000-000000000005", "fifo"}, {"11111111-0000-0000-0000-000000000006", "dotdot"},
	}
	tr.write(dir+"win-2023_VARS.fd", string(varsFile(t, "PK", kek2023, db2023)))
	tr.write(dir+"win-2011_VARS.fd", string(varsFile(t, "PK", kek2011, db2011)))
	tr.write(dir+"truncated_VARS.fd", string(varsFile(t, "PK", kek2011, db2011)[:300]))
	outside := filepath.Join(t.TempDir(), "VARS.fd")
	os.WriteFile(outside, varsFile(t, "PK", kek2023, db2023), 0o644)
	if err := os.Symlink(outside, filepath.Join(tr.root, dir, "escapes_VARS.fd")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(tr.root, dir, "fifo_VARS.fd"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, g := range guests {
		p := dir + g.name + "_VARS.fd"
		if g.name == "dotdot" {
			p = dir + "../../../../../etc/passwd"
		}
		tr.hv.domains = append(tr.hv.domains, nvramDomain(g.uuid, g.name, p))
		tr.mkdir("/var/lib/libvirt/swtpm/"+g.uuid+"/tpm2", 0o700)
	}
	r := tr.run()
	want := map[string]struct {
		risk  Risk
		certs Certs
		err   string
	}{
		"win-2023": {RiskLow, Certs2023, ""}, "win-2011": {RiskMedium, Certs2011, ""},
		"truncated": {RiskUnknown, CertsUnreadable, "does not fit"}, "escapes": {RiskUnknown, CertsUnreadable, "no such file"},
		"fifo": {RiskUnknown, CertsUnreadable, "not a regular file"}, "dotdot": {RiskUnknown, CertsUnreadable, "not a clean absolute path"},
	}
	if len(r.VTPMGuests) != len(guests) {
		t.Fatalf("%d guests", len(r.VTPMGuests))
	}
	for _, g := range r.VTPMGuests {
		w, b := want[g.Name], g.BitLocker
		if b == nil || b.Risk != w.risk || b.Certs != w.certs || !strings.Contains(b.NVRAMError, w.err) || (w.err == "") != (b.NVRAMError == "") {
			t.Errorf("%s: %+v, want %+v", g.Name, b, w)
			continue
		}
		if b.TPMStateKept != "yes" || b.NVRAMKept != "yes" || !b.SecureBoot {
			t.Errorf("%s: verdicts %+v", g.Name, b)
		}
	}
	c := find(r, "BITLOCKER-RISK")
	if c.Status != Warn || !strings.Contains(c.Message, "1 medium: win-2011 (") || !strings.Contains(c.Message, "4 unknown") || c.Remedy == "" {
		t.Errorf("BITLOCKER-RISK %s %q", c.Status, c.Message)
	}
	js, _ := json.Marshal(r.VTPMGuests[1])
	var back Guest
	if err := json.Unmarshal(js, &back); err != nil || !reflect.DeepEqual(back.BitLocker, r.VTPMGuests[1].BitLocker) ||
		!strings.Contains(string(js), `"bitlocker":{"risk":"medium"`) {
		t.Errorf("JSON %s (%v)", js, err)
	}

	// 31.0.0 resets the NVRAM and wipes the TPM: every guest is high.
	installNova(tr, "31.0.0", nova310)
	os.RemoveAll(filepath.Join(tr.root, "/usr/lib/python3/dist-packages/nova-31.3.0.egg-info"))
	r = tr.run()
	for _, g := range r.VTPMGuests {
		if g.BitLocker.Risk != RiskHigh || g.BitLocker.NVRAMKept != "no" {
			t.Errorf("31.0.0 %s: %+v", g.Name, g.BitLocker)
		}
	}
	if c := find(r, "BITLOCKER-RISK"); c.Status != Warn || !strings.Contains(c.Message, "6 high") {
		t.Errorf("31.0.0 BITLOCKER-RISK %q", c.Message)
	}
}

// TestBitLockerCheckNoGuests: nothing to judge is a pass, libvirt away a skip.
func TestBitLockerCheckNoGuests(t *testing.T) {
	f := healthyFacts(t)
	f.derive()
	if c := checkBitLocker(&f); c[0].Status != Pass {
		t.Errorf("no guests: %+v", c)
	}
	f.Libvirt.Connected = false
	if c := checkBitLocker(&f); c[0].Status != Skip {
		t.Errorf("libvirt away: %+v", c)
	}
}

// TestRiskGauges: every level is a series (zeros too), counted per host,
// and no guest's name or UUID reaches the metrics.
func TestRiskGauges(t *testing.T) {
	r := Report{Host: "cmp1", VTPMGuests: []Guest{
		{UUID: "u1", Name: "ceo-laptop", BitLocker: &GuestBitLocker{Risk: RiskHigh}},
		{UUID: "u2", Name: "hr-db", BitLocker: &GuestBitLocker{Risk: RiskHigh}},
		{UUID: "u3", Name: "web", BitLocker: &GuestBitLocker{Risk: RiskLow}},
		{UUID: "u4", Name: "no-view"},
	}}
	var buf bytes.Buffer
	if err := metrics.Write(&buf, r.Gauges()); err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, m := range fams["vtpmctl_host_bitlocker_risk_guests"].GetMetric() {
		l := map[string]string{}
		for _, x := range m.Label {
			l[x.GetName()] = x.GetValue()
		}
		if len(l) != 2 || l["host"] != "cmp1" {
			t.Errorf("labels %v", l)
		}
		got[l["level"]] = m.GetGauge().GetValue()
	}
	if want := map[string]float64{"high": 2, "medium": 0, "unknown": 1, "low": 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("levels %v, want %v", got, want)
	}
	for _, name := range []string{"ceo-laptop", "hr-db", "u1", "no-view"} {
		if strings.Contains(buf.String(), name) {
			t.Errorf("metrics name guest %s:\n%s", name, buf.String())
		}
	}
}
