package migration

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"

	"github.com/vtpmctl/vtpmctl/internal/quote"
)

// SourceVM is one VM as the inventory describes it.
type SourceVM struct {
	Name          string
	VCenter       string // VI SDK Server
	VCenterUUID   string // VI SDK UUID
	MoRef         string // VM ID, e.g. vm-53
	BIOSUUID      string // SMBIOS UUID (config.uuid)
	InstanceUUID  string // VM UUID (config.instanceUuid)
	GuestID       string
	OSConfig      string // OS according to the configuration file
	OSTools       string // OS according to the VMware Tools
	GuestDetailed string
	Firmware      string // efi, bios, "" (unknown)
	SecureBoot    *bool
	HWVersion     int
	VCPUs         int
	MemoryMiB     int
	DiskMiB       int
	PowerState    string
	VTPM          string // yes, no, unknown
	VTPMEvidence  string
	Line          int // CSV line, for messages
	// Warnings: values read but not understood, "file:line: …" each.
	Warnings []string
	// KeyProvider: the VM encryption key provider (a vTPM needs VM
	// encryption on vSphere); Snapshots: how many the VM has (vCenter only).
	KeyProvider string
	Snapshots   int
}

// RowError is a malformed inventory row: reported and skipped, or fatal
// when the caller is strict (RVToolsOptions.Strict).
type RowError struct {
	File string
	Line int
	Msg  string
}

func (e *RowError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// WorkbookError is an export that is a ZIP file, as an .xlsx workbook
// (RVTools' default export) is: the reader takes the vInfo tab as CSV.
type WorkbookError struct{ File string }

func (e *WorkbookError) Error() string {
	return e.File + " is a ZIP file, such as an .xlsx workbook (RVTools' default export): export the vInfo tab as CSV (RVTools -c ExportvInfo2csv, or the tab's Export to CSV) and pass that file"
}

// zipMagic starts every ZIP file, so every .xlsx workbook.
var zipMagic = []byte("PK\x03\x04")

// ColumnError is a vTPM column the caller named (RVToolsOptions.
// VTPMColumn) that the export does not have: the caller words it with
// its option's name (Message).
type ColumnError struct{ File, Column string }

func (e *ColumnError) Error() string { return e.Message("vTPM column") }

// Message words the error with option, the caller's name for the column
// it was given.
func (e *ColumnError) Message(option string) string {
	return fmt.Sprintf("%s:1: %s %q is not a column of this export", e.File, option, e.Column)
}

// Skipped is a row that is not a migratable VM, with the reason.
type Skipped struct {
	Name, Reason string
	Line         int
}

// headerAliases maps each field to its RVTools display header and the
// -DBColumnNames header (and older MB names). Matching ignores case,
// spaces and punctuation.
var headerAliases = map[string][]string{
	"name":          {"VM", "vInfoVMName"},
	"powerstate":    {"Powerstate", "vInfoPowerstate"},
	"template":      {"Template", "vInfoTemplate"},
	"srm":           {"SRM Placeholder", "vInfoSRMPlaceHolder"},
	"cpus":          {"CPUs", "vInfoCPUs"},
	"memory":        {"Memory", "vInfoMemory"},
	"disk":          {"Total disk capacity MiB", "vInfoTotalDiskCapacityMiB", "Provisioned MiB", "vInfoProvisioned", "Provisioned MB", "Total disk capacity MB"},
	"firmware":      {"Firmware", "vInfoFirmware"},
	"secureboot":    {"EFI Secure boot", "vInfoEFISecureBoot", "vInfoEfiSecureBoot"},
	"hwversion":     {"HW version", "VInfoVersion", "vInfoHWVersion"},
	"osconfig":      {"OS according to the configuration file", "vInfoOS"},
	"ostools":       {"OS according to the VMware Tools", "vInfoOSTools"},
	"guestdetailed": {"Guest Detailed Data", "vInfoGuestDetailedData"},
	"vmid":          {"VM ID", "vInfoVMID", "vInfoVMId"},
	"smbiosuuid":    {"SMBIOS UUID", "vInfoSMBIOSUUID"},
	"vmuuid":        {"VM UUID", "vInfoUUID"},
	"vcenter":       {"VI SDK Server", "vInfoVISDKServer"},
	"vcenteruuid":   {"VI SDK UUID", "vInfoVISDKUUID"},
}

func normHeader(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// RVToolsOptions tune the vInfo reader.
type RVToolsOptions struct {
	File       string // for messages
	VTPMColumn string // a custom attribute column that says yes/no
	Strict     bool   // a malformed row is fatal
}

// ParseRVTools reads an RVTools vInfo CSV: headers by name (display or
// DB names), ',' or ';', BOM, quoted fields, numbers with separators.
// Templates and SRM placeholders are skipped with the reason; malformed
// rows are reported with their line and skipped. A workbook (.xlsx) is
// a *WorkbookError.
func ParseRVTools(r io.Reader, o RVToolsOptions) (vms []SourceVM, skipped []Skipped, rowErrs []error, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if magic, _ := br.Peek(len(zipMagic)); bytes.Equal(magic, zipMagic) {
		return nil, nil, nil, &WorkbookError{File: o.File}
	}
	cr := csvReader(br)
	header, err := cr.Read()
	if err != nil {
		return nil, nil, nil, &RowError{File: o.File, Line: 1, Msg: "cannot read the header: " + err.Error()}
	}
	col, err := rvtoolsColumns(header, o)
	if err != nil {
		return nil, nil, nil, err
	}
	// A bad row is reported with its line and skipped; Strict stops.
	bad := func(e error) error {
		if o.Strict {
			return e
		}
		rowErrs = append(rowErrs, e)
		return nil
	}
	for {
		rec, rerr := cr.Read()
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			line := 0
			var pe *csv.ParseError
			if errors.As(rerr, &pe) {
				line = pe.Line
			}
			if e := bad(&RowError{File: o.File, Line: line, Msg: "malformed CSV: " + rerr.Error()}); e != nil {
				return nil, nil, nil, e
			}
			continue
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) != len(header) {
			if e := bad(&RowError{File: o.File, Line: line, Msg: fmt.Sprintf("%d fields, the header has %d", len(rec), len(header))}); e != nil {
				return nil, nil, nil, e
			}
			continue
		}
		vm, skip, rowErr := rvtoolsRow(rec, col, line, o)
		switch {
		case rowErr != nil:
			if e := bad(rowErr); e != nil {
				return nil, nil, nil, e
			}
		case skip != nil:
			skipped = append(skipped, *skip)
		default:
			vms = append(vms, vm)
		}
	}
	return vms, skipped, rowErrs, nil
}

// csvReader reads an export as a stream (100,000 VMs are hundreds of MB),
// without a BOM, with the separator the header line uses.
func csvReader(br *bufio.Reader) *csv.Reader {
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	}
	peek, _ := br.Peek(64 << 10)
	first, _, _ := bytes.Cut(peek, []byte("\n"))
	cr := csv.NewReader(br)
	cr.ReuseRecord = true
	if bytes.Count(first, []byte(";")) > bytes.Count(first, []byte(",")) {
		cr.Comma = ';'
	}
	cr.FieldsPerRecord = -1 // checked by the caller, with the line number
	return cr
}

// rvtoolsColumns maps the fields vtpmctl reads to their columns, by any of
// the header names RVTools writes.
func rvtoolsColumns(header []string, o RVToolsOptions) (map[string]int, error) {
	col := map[string]int{}
	for i, h := range header {
		n := normHeader(h)
		for field, aliases := range headerAliases {
			for _, a := range aliases {
				if _, dup := col[field]; !dup && n == normHeader(a) {
					col[field] = i
				}
			}
		}
		if o.VTPMColumn != "" && n == normHeader(o.VTPMColumn) {
			col["vtpm"] = i
		}
	}
	for _, need := range []string{"name", "cpus", "memory"} {
		if _, ok := col[need]; !ok {
			return nil, &RowError{File: o.File, Line: 1, Msg: fmt.Sprintf("no %q column: is this an RVTools vInfo export (tab vInfo, RVTools_tabvInfo.csv)?", headerAliases[need][0])}
		}
	}
	if _, ok := col["vtpm"]; o.VTPMColumn != "" && !ok {
		return nil, &ColumnError{File: o.File, Column: o.VTPMColumn}
	}
	return col, nil
}

// rvtoolsRow reads one VM, or says why it is skipped or malformed.
func rvtoolsRow(rec []string, col map[string]int, line int, o RVToolsOptions) (SourceVM, *Skipped, error) {
	get := func(f string) string {
		if i, ok := col[f]; ok {
			// a copy: the field shares the reused record's line
			return strings.Clone(strings.TrimSpace(rec[i]))
		}
		return ""
	}
	vm := SourceVM{Name: get("name"), VCenter: get("vcenter"), VCenterUUID: get("vcenteruuid"), MoRef: get("vmid"),
		BIOSUUID: get("smbiosuuid"), InstanceUUID: get("vmuuid"), OSConfig: get("osconfig"), OSTools: get("ostools"),
		GuestDetailed: get("guestdetailed"), Firmware: strings.ToLower(get("firmware")), PowerState: get("powerstate"), VTPM: "unknown", Line: line}
	if vm.Name == "" {
		return vm, nil, &RowError{File: o.File, Line: line, Msg: "empty VM name"}
	}
	if b, ok := parseBool(get("template")); ok && b {
		return vm, &Skipped{vm.Name, "template", line}, nil
	}
	if b, ok := parseBool(get("srm")); ok && b {
		return vm, &Skipped{vm.Name, "SRM placeholder (the protected VM is migrated from its own site)", line}, nil
	}
	var perr error
	num := func(f string) int {
		v := get(f)
		if v == "" {
			return 0
		}
		n, err := parseNumber(v)
		if err != nil && perr == nil {
			perr = fmt.Errorf("%s = %q: expected a number", headerAliases[f][0], v)
		}
		return n
	}
	vm.VCPUs, vm.MemoryMiB, vm.DiskMiB = num("cpus"), num("memory"), num("disk")
	if perr != nil {
		return vm, nil, &RowError{File: o.File, Line: line, Msg: perr.Error()}
	}
	if b, ok := parseBool(get("secureboot")); ok {
		vm.SecureBoot = &b
	}
	vm.HWVersion = digits(get("hwversion"))
	if _, ok := col["vtpm"]; ok {
		raw := get("vtpm")
		if b, ok := parseVTPM(raw); ok {
			vm.VTPM, vm.VTPMEvidence = yesNo(b), fmt.Sprintf("column %s = %q", o.VTPMColumn, raw)
		} else {
			w := &RowError{File: o.File, Line: line, Msg: fmt.Sprintf("VM %s: column %s: %q is not a vTPM value (Enabled/Disabled, Present/Absent, True/False, Yes/No, 1/0 or empty): vTPM unknown",
				quote.OneLine(vm.Name), o.VTPMColumn, quote.OneLine(raw))}
			if o.Strict {
				return vm, nil, w
			}
			vm.Warnings = append(vm.Warnings, w.Error())
		}
	}
	return vm, nil, nil
}

// parseVTPM reads a vTPM column the way vSphere custom attributes and
// people write it. Empty is "no": a custom attribute set only on the VMs
// that have a vTPM ("Enabled" / empty) is the usual convention.
func parseVTPM(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "enabled", "present":
		return true, true
	case "disabled", "absent", "":
		return false, true
	}
	return parseBool(s)
}

func parseBool(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "1", "y", "on", "wahr", "vrai":
		return true, true
	case "false", "no", "0", "n", "off", "falsch", "faux":
		return false, true
	}
	return false, false
}

// parseNumber accepts "16384", "16,384", "16.384", "16 384" and a decimal
// part ("102400,00"): locale-formatted exports round to whole units.
func parseNumber(s string) (int, error) {
	s = strings.Map(func(r rune) rune {
		if r == ' ' || r == '\u00a0' || r == '\u202f' || r == '\'' {
			return -1
		}
		return r
	}, s)
	// a trailing decimal part of 1-2 digits after , or .
	if i := strings.LastIndexAny(s, ",."); i >= 0 && len(s)-i-1 <= 2 && len(s)-i-1 > 0 {
		s = s[:i]
	}
	s = strings.NewReplacer(",", "", ".", "").Replace(s)
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("not a number")
	}
	return n, nil
}

func digits(s string) int {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	n, _ := strconv.Atoi(b.String())
	return n
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
