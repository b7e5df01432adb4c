package migration

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

func parseFile(t *testing.T, path string, o RVToolsOptions) ([]SourceVM, []Skipped, []error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	o.File = path
	vms, sk, rows, err := ParseRVTools(f, o)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return vms, sk, rows
}

func byName(vms []SourceVM, name, vcenter string) *SourceVM {
	for i := range vms {
		if vms[i].Name == name && (vcenter == "" || vms[i].VCenter == vcenter) {
			return &vms[i]
		}
	}
	return nil
}

func TestParseRVTools40(t *testing.T) {
	vms, skipped, rows := parseFile(t, "testdata/RVTools_tabvInfo-40.csv", RVToolsOptions{})
	if len(vms) != 37 || len(skipped) != 3 || len(rows) != 1 {
		t.Fatalf("vms %d skipped %d bad rows %d, want 37/3/1", len(vms), len(skipped), len(rows))
	}
	var re *RowError
	if !errors.As(rows[0], &re) || re.Line != 42 || !strings.Contains(re.Msg, "12 fields, the header has 93") {
		t.Errorf("bad row report: %v", rows[0])
	}
	if skipped[0].Reason != "template" || !strings.Contains(skipped[1].Reason, "SRM placeholder") {
		t.Errorf("skip reasons %+v", skipped)
	}
	a, b := byName(vms, "w22-01", "vc01.example.net"), byName(vms, "w22-01", "vc02.example.net")
	if a == nil || b == nil || a.BIOSUUID == b.BIOSUUID {
		t.Fatalf("the same name on two vCenters must stay two VMs: %+v %+v", a, b)
	}
	w := byName(vms, "w11-00", "")
	if w.VCPUs != 2 || w.MemoryMiB != 8192 || w.DiskMiB != 81920 || w.Firmware != "efi" || w.SecureBoot == nil || !*w.SecureBoot || w.HWVersion != 19 || w.VTPM != "unknown" {
		t.Errorf("w11-00: %+v", w)
	}
}

func TestParseRVToolsVariants(t *testing.T) {
	base, _, _ := parseFile(t, "testdata/RVTools_tabvInfo-40.csv", RVToolsOptions{})
	semi, _, rows := parseFile(t, "testdata/RVTools_tabvInfo-semicolon-bom.csv", RVToolsOptions{})
	if len(rows) != 0 || len(semi) != 8 {
		t.Fatalf("semicolon/BOM: %d VMs, %v", len(semi), rows)
	}
	for i, v := range semi {
		if v.Name != base[i].Name || v.MemoryMiB != base[i].MemoryMiB || v.DiskMiB != base[i].DiskMiB {
			t.Errorf("semicolon row %d: %+v vs %+v", i, v, base[i])
		}
	}
	db, _, rows := parseFile(t, "testdata/RVTools_tabvInfo-dbcolumns.csv", RVToolsOptions{})
	if len(rows) != 0 || len(db) != 8 || db[0].Name != "w11-00" || db[0].Firmware != "efi" || db[0].OSTools == "" {
		t.Errorf("-DBColumnNames: %+v %v", db, rows)
	}
	cv, _, _ := parseFile(t, "testdata/RVTools_tabvInfo-custom-vTPM.csv", RVToolsOptions{VTPMColumn: "vTPM"})
	if cv[0].VTPM != "yes" || cv[1].VTPM != "no" || cv[0].VTPMEvidence != `column vTPM = "yes"` {
		t.Errorf("custom vTPM column: %+v %+v", cv[0], cv[1])
	}
}

func TestParseRVToolsErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Name,Size\nx,1\n", `no "VM" column`},
		{"", "cannot read the header"},
		{"VM,CPUs,Memory\na,2,lots\n", ""}, // a bad number is a row error, not fatal
	}
	for _, c := range cases {
		_, _, rows, err := ParseRVTools(strings.NewReader(c.in), RVToolsOptions{File: "x.csv"})
		if c.want == "" {
			if err != nil || len(rows) != 1 || !strings.Contains(rows[0].Error(), "x.csv:2: Memory = \"lots\": expected a number") {
				t.Errorf("%q: %v %v", c.in, err, rows)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
	// RVTools' default export is a workbook: a ZIP, not a CSV without a
	// VM column.
	var we *WorkbookError
	if _, _, _, err := ParseRVTools(strings.NewReader("PK\x03\x04\x14\x00\x06\x00[Content_Types].xml"), RVToolsOptions{File: "RVTools.xlsx"}); !errors.As(err, &we) || we.File != "RVTools.xlsx" ||
		!strings.HasPrefix(err.Error(), "RVTools.xlsx is a ZIP file, such as an .xlsx workbook (RVTools' default export): export the vInfo tab as CSV") {
		t.Errorf("xlsx: %v", err)
	}
	if _, _, _, err := ParseRVTools(strings.NewReader("VM,CPUs,Memory\na,2\n"), RVToolsOptions{File: "x.csv", Strict: true}); err == nil || !strings.Contains(err.Error(), "x.csv:2:") {
		t.Errorf("--strict: %v", err)
	}
	// A column the caller named that the export lacks: typed, worded by
	// the caller with its option's name (the CLI: --vtpm-column).
	_, _, _, err := ParseRVTools(strings.NewReader("VM,CPUs,Memory\n"), RVToolsOptions{File: "x.csv", VTPMColumn: "vTPM"})
	var ce *ColumnError
	if !errors.As(err, &ce) || ce.Column != "vTPM" || ce.File != "x.csv" || !strings.Contains(err.Error(), `"vTPM" is not a column`) ||
		ce.Message("--vtpm-column") != `x.csv:1: --vtpm-column "vTPM" is not a column of this export` {
		t.Errorf("missing vTPM column: %v", err)
	}
}

func TestParseNumber(t *testing.T) {
	for in, want := range map[string]int{"16384": 16384, "16,384": 16384, "16.384": 16384, "16 384": 16384, "102.400,00": 102400, "102400,5": 102400} {
		if got, err := parseNumber(in); err != nil || got != want {
			t.Errorf("%q: %d %v, want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"x", "-1", "1e3"} {
		if _, err := parseNumber(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestGovcSamples reads the real govc output of the vSphere simulator.
func TestGovcSamples(t *testing.T) {
	const dir = "testdata/vcsim/"
	read := func(name string) []byte {
		d, err := os.ReadFile(dir + name)
		if err != nil {
			t.Fatalf("sample %s: %v", name, err)
		}
		return d
	}
	vms, err := ParseGovc(read("govc-vm.info-5vms.vcsim.json"), "", "5vms")
	if err != nil || len(vms) != 5 {
		t.Fatalf("%v %d", err, len(vms))
	}
	want := map[string]bool{"win2022-vtpm": true, "win11-vdi-01": true, "win2025-efi-notpm": false, "win2016-bios": false, "rhel9-app": false}
	for _, v := range vms {
		if v.VTPM != want[v.Name] {
			t.Errorf("%s: vTPM %v (%s)", v.Name, v.VTPM, v.Evidence)
		}
	}
	if vms[0].Firmware != "efi" || vms[0].SecureBoot == nil || !*vms[0].SecureBoot || vms[0].DiskMiB != 102400 || vms[0].VCPUs != 4 {
		t.Errorf("win2022-vtpm facts: %+v", vms[0])
	}
	d, err := ParseGovc(read("govc-device.info-win2022-vtpm.vcsim.json"), "win2022-vtpm", "di")
	if err != nil || !d[0].VTPM || !strings.Contains(d[0].Evidence, "type VirtualTPM") {
		t.Errorf("device.info: %+v %v", d, err)
	}
	d, _ = ParseGovc(read("govc-device.info-win2025-efi-notpm.vcsim.json"), "win2025", "di")
	if d[0].VTPM {
		t.Errorf("win2025 has no vTPM: %+v", d)
	}
	// Without the VM's name: a typed error the caller words with its own
	// way to give the name (the CLI: --govc VMNAME=FILE).
	_, err = ParseGovc(read("govc-device.info-win2022-vtpm.vcsim.json"), "", "di.json")
	var unnamed *UnnamedVMError
	if err == nil || !strings.Contains(err.Error(), "VMNAME=di.json") || !errors.As(err, &unnamed) || unnamed.File != "di.json" || unnamed.Output != "device.info" ||
		unnamed.Message("--govc VMNAME=di.json") != "di.json: govc device.info output names no VM: pass it as --govc VMNAME=di.json" {
		t.Errorf("device.info without a VM name: %v", err)
	}
	oc, err := ParseGovc(read("govc-object.collect-win2022-vtpm.vcsim.json"), "win2022-vtpm", "oc")
	if err != nil || oc[0].Firmware != "efi" || oc[0].VCPUs != 4 {
		t.Errorf("object.collect: %+v %v", oc, err)
	}
	// Older govc (< 0.31) prints PascalCase keys; the same struct reads them.
	old := strings.NewReplacer(`"virtualMachines"`, `"VirtualMachines"`, `"config"`, `"Config"`, `"hardware"`, `"Hardware"`, `"numCPU"`, `"NumCPU"`, `"firmware"`, `"Firmware"`).Replace(string(read("govc-vm.info-5vms.vcsim.json")))
	vo, err := ParseGovc([]byte(old), "", "old")
	if err != nil || len(vo) != 5 || vo[0].VCPUs != 4 || vo[0].Firmware != "efi" || !vo[0].VTPM {
		t.Errorf("PascalCase govc: %v %+v", err, vo)
	}
}

func TestIdentifyOS(t *testing.T) {
	cases := []struct{ tools, detailed, id, config, want string }{
		{"", "", "windows2019srvNext_64Guest", "", "Windows Server 2022"},
		{"", "", "windows2022srvNext_64Guest", "", "Windows Server 2025"},
		{"", "", "windows9_64Guest", "", "Windows 10"},
		{"Microsoft Windows Server 2022 (64-bit)", "", "windows2019srv_64Guest", "Microsoft Windows Server 2019 (64-bit)", "Windows Server 2022"},
		{"", "", "", "Microsoft Windows 11 (64-bit)", "Windows 11"},
		{"", "buildNumber='20348' familyName='Windows'", "windows2019srv_64Guest", "", "Windows Server 2022"},
		{"", "", "rhel9_64Guest", "", "rhel9_64Guest"},
	}
	for _, c := range cases {
		if got := IdentifyOS(c.tools, c.detailed, c.id, c.config); got.Name != c.want {
			t.Errorf("%+v: %q (%s), want %q", c, got.Name, got.Source, c.want)
		}
	}
	if !IdentifyOS("", "", "windows11_64Guest", "").Win11 || IdentifyOS("", "", "rhel9_64Guest", "").Windows {
		t.Error("Win11/Linux classification")
	}
}

func TestImportRules(t *testing.T) {
	yes, no := true, false
	vm := func(name, fw string, sb *bool, vtpm, id string) SourceVM {
		return SourceVM{Name: name, Firmware: fw, SecureBoot: sb, VTPM: vtpm, GuestID: id, VCPUs: 2, MemoryMiB: 4096, DiskMiB: 40960, HWVersion: 19}
	}
	cat := []PlanFlavor{{Name: "s1", VCPUs: 2, RAM: 4096, Disk: 40}, {Name: "v1", VCPUs: 2, RAM: 4096, Disk: 40, TPMVersion: "2.0"}, {Name: "v-big", VCPUs: 8, RAM: 16384, Disk: 200, TPMVersion: "2.0", TPMModel: "tpm-crb"}}
	p, sum := Import([]SourceVM{
		vm("srv22-vtpm", "efi", &yes, "yes", "windows2019srvNext_64Guest"),
		vm("srv22-none", "efi", &yes, "no", "windows2019srvNext_64Guest"),
		vm("w11-none", "efi", &yes, "no", "windows11_64Guest"),
		vm("w11-bios", "bios", &no, "unknown", "windows11_64Guest"),
		vm("srv16-bios-sb", "bios", &yes, "no", "windows9Server64Guest"),
		vm("rhel-unknown", "efi", &no, "unknown", "rhel9_64Guest"),
	}, ImportOptions{Catalogue: cat, Release: nova.Zed})
	get := func(n string) (PlanVM, PlanImage) {
		for i := range p.VMs {
			if p.VMs[i].Name == n {
				return p.VMs[i], p.Images[i]
			}
		}
		t.Fatalf("no %s", n)
		return PlanVM{}, PlanImage{}
	}
	if v, img := get("srv22-vtpm"); img.TPMVersion != "2.0" || !img.Windows || v.TargetFlavor != "v1" || v.TargetVTPM != "2.0 tpm-crb" {
		t.Errorf("source vTPM -> TPM 2.0 + Windows profile + a vTPM flavor: %+v %+v", v, img)
	}
	if v, img := get("srv22-none"); img.TPMVersion != "" || v.TargetFlavor != "s1" || img.Properties["os_secure_boot"] != "required" || img.Properties["hw_machine_type"] != "q35" {
		t.Errorf("no source vTPM: no TPM added, no vTPM flavor: %+v %+v", v, img)
	}
	if v, img := get("w11-none"); img.TPMVersion != "2.0" || len(v.Flags) == 0 || !strings.Contains(v.Flags[0], "Windows 11 requires TPM 2.0") {
		t.Errorf("Windows 11 always gets TPM 2.0, flagged: %+v %+v", v, img)
	}
	// MTV's rule: BIOS moves as BIOS; the conversion is a later, planned step.
	if v, img := get("w11-bios"); img.TPMVersion != "" || img.Windows || img.Properties["hw_firmware_type"] != "" || v.TargetVTPM != "none" ||
		!strings.Contains(strings.Join(v.Flags, " "), "moves as BIOS") || len(v.FollowUp) == 0 ||
		!strings.Contains(strings.Join(v.FollowUp, "\n"), "mbr2gpt /convert /allowFullOS") ||
		!strings.Contains(strings.Join(v.FollowUp, "\n"), "openstack image set --property hw_firmware_type=uefi --property hw_machine_type=q35 --property os_secure_boot=required --property hw_tpm_version=2.0") {
		t.Errorf("Windows 11 on BIOS: %+v %+v", v, img)
	}
	if v, img := get("srv16-bios-sb"); img.TPMVersion != "" || !strings.Contains(strings.Join(v.Flags, " "), "BIOS with Secure Boot enabled is inconsistent") || img.Properties["hw_firmware_type"] != "" {
		t.Errorf("BIOS + Secure Boot: %+v %+v", v, img)
	}
	if v, img := get("rhel-unknown"); img.TPMVersion != "" || !strings.Contains(fmt.Sprint(v.Checklist), "confirm whether the source has a vTPM") || !strings.Contains(fmt.Sprint(v.Checklist), "LUKS") {
		t.Errorf("unknown vTPM on Linux: %+v %+v", v, img)
	}
	if sum.VMs != 6 || sum.SourceVTPM != 1 || sum.UnknownVTPM != 2 || sum.TargetVTPM != 2 {
		t.Errorf("summary %+v", sum)
	}
	var buf bytes.Buffer
	if err := WritePlan(&buf, p); err != nil {
		t.Fatal(err)
	}
	back, err := ReadPlan(&buf, "p.yaml")
	if err != nil || len(back.VMs) != 6 {
		t.Fatalf("round trip: %v", err)
	}
}

func TestFlavorMapping(t *testing.T) {
	pv := PlanVM{VCPUs: 3, RAM: 5000, DiskGiB: 50}
	cat := []PlanFlavor{{Name: "small", VCPUs: 2, RAM: 8192, Disk: 80}, {Name: "big", VCPUs: 8, RAM: 8192, Disk: 80}, {Name: "mid", VCPUs: 4, RAM: 8192, Disk: 80}}
	sortCat := append([]PlanFlavor{}, cat...)
	for i := range sortCat {
		for j := i + 1; j < len(sortCat); j++ {
			if flavorLess(sortCat[j], sortCat[i]) {
				sortCat[i], sortCat[j] = sortCat[j], sortCat[i]
			}
		}
	}
	if f, prop := mapFlavor(sortCat, pv, PlanImage{}); prop || f.Name != "mid" {
		t.Errorf("smallest fit: %+v %v", f, prop)
	}
	if f, prop := mapFlavor(sortCat, pv, PlanImage{TPMVersion: "2.0", TPMModel: "tpm-crb"}); !prop || f.Name != "vtpm.3c5g50d" || f.TPMVersion != "2.0" {
		t.Errorf("no vTPM flavor fits: %+v %v", f, prop)
	}
}

func TestPlanValidate(t *testing.T) {
	cases := []struct{ yaml, want string }{
		{"version: 2\n", "plan version 1"},
		{"version: 1\nimages:\n  - name: a\n    tpm_version: '1.2'\n    tpm_model: tpm-crb\n", "CRB"},
		{"version: 1\nflavors:\n  - name: f\n    vcpus: 0\n    ram: 1\n    disk: 1\n", "vcpus and ram"},
		{"version: 1\nflavors:\n  - name: f\n    vcpus: 1\n    ram: 1\n    disk: 1\n    tpm_model: tpm-tis\n", "tpm_model without tpm_version"},
		{"version: 1\nimages:\n  - name: a\n    properties: {hw_tpm_version: '2.0'}\n", "set hw_tpm_version with tpm_version"},
		{"version: 1\nbogus: 1\n", "field bogus not found"},
		{"version: 1\nimages: [\n", "line"},
		// A plan writes image properties, never the image itself.
		{"version: 1\nimages:\n  - name: win\n    properties: {visibility: public}\n", `images[0] (win): properties key "visibility" is a Glance core attribute`},
		{"version: 1\nimages:\n  - name: win\n    properties: {owner: 9a8b}\n", `properties key "owner" is a Glance core attribute`},
		{"version: 1\nimages:\n  - name: win\n    properties: {zz: a, tags: x, name: y}\n", `properties key "name"`}, // first in order, every run
		{"version: 1\nimages:\n  - name: win\n    properties: {locations: x}\n", `"locations" is a Glance core attribute`},
		{"version: 1\nimages:\n  - name: win\n    properties: {metadata: x}\n", `"metadata" is read as a field of the image`},
		{"version: 1\nimages:\n  - name: win\n    properties: {os_glance_import_task: x}\n", "reserved os_glance namespace"},
		{"version: 1\nimages:\n  - name: win\n    properties: {'': x}\n", "an empty key"},
	}
	for _, c := range cases {
		_, err := ReadPlan(strings.NewReader(c.yaml), "plan.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "plan.yaml: ") {
			t.Errorf("%q: %v, want %q", c.yaml, err, c.want)
		}
	}
	// Every core attribute of Glance's image schema is refused.
	for _, k := range []string{"id", "name", "status", "visibility", "protected", "os_hidden", "checksum", "os_hash_algo", "os_hash_value",
		"owner", "size", "virtual_size", "container_format", "disk_format", "created_at", "updated_at", "tags", "direct_url",
		"min_ram", "min_disk", "self", "file", "schema", "locations"} {
		p := Plan{Version: 1, Images: []PlanImage{{Name: "i", Properties: map[string]string{k: "x"}}}}
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", k)) || strings.Contains(err.Error(), "\n") {
			t.Errorf("core attribute %s: %v", k, err)
		}
	}
	// A key with "/" or "~" is a property like any other.
	p := Plan{Version: 1, Images: []PlanImage{{Name: "i", Properties: map[string]string{"tags/-": "x", "vendor~1/a": "y", "os_distro": "windows"}}}}
	if err := p.Validate(); err != nil {
		t.Errorf("legitimate properties: %v", err)
	}
}

func FuzzRVTools(f *testing.F) {
	data, _ := os.ReadFile("testdata/RVTools_tabvInfo-semicolon-bom.csv")
	f.Add(string(data))
	f.Add("VM,CPUs,Memory\na,1,2\n")
	f.Add("vInfoVMName;vInfoCPUs;vInfoMemory\n\"a;b\";1;2.048\n")
	f.Fuzz(func(t *testing.T, s string) {
		vms, _, rows, err := ParseRVTools(strings.NewReader(s), RVToolsOptions{File: "f.csv"})
		if err != nil {
			return
		}
		for _, r := range rows {
			if !strings.HasPrefix(r.Error(), "f.csv:") {
				t.Fatalf("row error without file:line: %v", r)
			}
		}
		Import(vms, ImportOptions{})
	})
}

func FuzzGovc(f *testing.F) {
	for _, name := range []string{"govc-vm.info-win2022-vtpm.vcsim.json", "govc-device.info-win11-vdi-01.vcsim.json", "govc-object.collect-win2022-vtpm.vcsim.json"} {
		if d, err := os.ReadFile("testdata/vcsim/" + name); err == nil {
			f.Add(string(d))
		}
	}
	f.Add(`{"virtualMachines":[{"name":"x","config":{"hardware":{"device":[{"key":11000,"deviceInfo":{"label":"Virtual TPM"}}]}}}]}`)
	f.Fuzz(func(t *testing.T, s string) {
		ParseGovc([]byte(s), "vm", "f.json")
		ParseGovc([]byte(s), "", "f.json")
	})
}

func FuzzPlanYAML(f *testing.F) {
	data, _ := os.ReadFile("../examples/plan.yaml")
	f.Add(string(data))
	f.Add("version: 1\nimages: []\n")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ReadPlan(strings.NewReader(s), "f.yaml")
		if err == nil {
			Checklist(p)
		}
	})
}

// TestVTPMColumnValues: what vSphere custom attributes and people write;
// anything else is a warning naming the row and value (fatal with Strict).
func TestVTPMColumnValues(t *testing.T) {
	csv := "VM,CPUs,Memory,vTPM\n" +
		"a,1,1024,Enabled\nb,1,1024,\nc,1,1024,PRESENT\nd,1,1024,disabled\ne,1,1024,1\nf,1,1024,No\ng,1,1024,maybe\n"
	vms, _, rows, err := ParseRVTools(strings.NewReader(csv), RVToolsOptions{File: "x.csv", VTPMColumn: "vTPM"})
	if err != nil || len(rows) != 0 || len(vms) != 7 {
		t.Fatalf("%v %v %d", err, rows, len(vms))
	}
	want := map[string]string{"a": "yes", "b": "no", "c": "yes", "d": "no", "e": "yes", "f": "no", "g": "unknown"}
	for _, v := range vms {
		if v.VTPM != want[v.Name] {
			t.Errorf("%s: %s, want %s", v.Name, v.VTPM, want[v.Name])
		}
		if (v.Name == "g") != (len(v.Warnings) == 1) {
			t.Errorf("%s warnings %v", v.Name, v.Warnings)
		}
	}
	if w := vms[6].Warnings[0]; !strings.Contains(w, "x.csv:8") || !strings.Contains(w, `"maybe"`) {
		t.Errorf("warning %q", w)
	}
	if _, _, _, err := ParseRVTools(strings.NewReader(csv), RVToolsOptions{File: "x.csv", VTPMColumn: "vTPM", Strict: true}); err == nil || !strings.Contains(err.Error(), "maybe") {
		t.Errorf("strict: %v", err)
	}
}

func TestShortHost(t *testing.T) {
	for in, want := range map[string]string{
		"vc01.example.net": "vc01", "https://vc01-lab.example.net/sdk": "vc01-lab", "administrator@vsphere.local@vc02.corp:443": "vc02",
		"10.0.0.5": "10.0.0.5", "https://[fd00::5]:443/sdk": "fd00--5", "": "vc", "vc03": "vc03",
	} {
		if got := shortHost(in); got != want {
			t.Errorf("shortHost(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestBitLockerEscrow: a Windows guest whose source may have a vTPM starts
// unconfirmed; the checklist says so until the team confirms in the plan.
func TestBitLockerEscrow(t *testing.T) {
	yes := true
	p, _ := Import([]SourceVM{
		{Name: "w", VCPUs: 2, MemoryMiB: 4096, GuestID: "windows2019srvNext_64Guest", OSConfig: "Microsoft Windows Server 2022 (64-bit)", Firmware: "efi", SecureBoot: &yes, VTPM: "yes"},
		{Name: "l", VCPUs: 2, MemoryMiB: 4096, GuestID: "rhel9_64Guest", Firmware: "efi", VTPM: "yes"},
	}, ImportOptions{TPMModel: "tpm-crb"})
	if p.VMs[0].BitLockerEscrow != "unconfirmed" || p.VMs[1].BitLockerEscrow != "" {
		t.Fatalf("%q %q", p.VMs[0].BitLockerEscrow, p.VMs[1].BitLockerEscrow)
	}
	has := func(s string) bool {
		for _, it := range Checklist(p) {
			if it.VM == "w" && strings.Contains(it.Item, s) {
				return true
			}
		}
		return false
	}
	if !has("NOT confirmed escrowed") {
		t.Error("unconfirmed escrow is not in the checklist")
	}
	p.VMs[0].BitLockerEscrow = "confirmed"
	if !has("confirmed escrowed") || has("NOT confirmed") {
		t.Error("confirmed escrow")
	}
	p.VMs[0].BitLockerEscrow = "maybe"
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "bitlocker_escrow") {
		t.Errorf("validate: %v", err)
	}
}
