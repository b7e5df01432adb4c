package hostcheck

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/infile/infiletest"
)

// A host report is a file someone handed us: a FIFO must not hang the
// reader (before: open blocked for ever waiting for a writer) and a
// *.json link to /dev/zero must not be read until memory runs out.
func TestReadReportRefusesNonRegular(t *testing.T) {
	infiletest.Refused(t, "host.json", func(path string) error { _, err := ReadReport(path); return err })
}

// TestReadReportDir: a directory without reports says so (ErrNoReports,
// which the command words with its flag); two reports of one service
// host are refused, naming both files; two services on one machine (the
// same libvirt host name) are two reports.
func TestReadReportDir(t *testing.T) {
	write := func(dir, name, host, node string) {
		body := `{"schema":"` + ReportSchema + `","host":"` + host + `","nova_release":"zed","checks":[],"facts":{"hypervisor_hostname":"` + node + `"}}`
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	empty := t.TempDir()
	if _, err := ReadReportDir(empty); !errors.Is(err, ErrNoReports) {
		t.Errorf("empty dir: %v", err)
	}
	dup := t.TempDir()
	write(dup, "a.json", "cmp1", "cmp1.x")
	write(dup, "b.json", "cmp1", "")
	if _, err := ReadReportDir(dup); err == nil || !strings.HasSuffix(err.Error(), "b.json both report host cmp1: keep one") {
		t.Errorf("duplicate host: %v", err)
	}
	pair := t.TempDir()
	write(pair, "a.json", "devcloud", "devcloud")
	write(pair, "b.json", "devcloud-fake", "devcloud")
	if reps, err := ReadReportDir(pair); err != nil || len(reps) != 2 {
		t.Errorf("two services on one machine: %v %+v", err, reps)
	}
}

// A report's guest UUIDs are read in Nova's (lower-case) form: the fleet
// audit matches each domain to its server by it.
func TestReadReportCanonicalUUIDs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.json")
	body := `{"schema":"` + ReportSchema + `","host":"cmp1","nova_release":"zed","checks":[],"facts":{},` +
		`"vtpm_guests":[{"uuid":"6F1C52F4-7D39-4C51-9A4F-3A8F0F1A6D11","name":"a"},{"uuid":"not-a-uuid","name":"b"}]}`
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := ReadReport(path)
	if err != nil || len(r.VTPMGuests) != 2 || r.VTPMGuests[0].UUID != "6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d11" || r.VTPMGuests[1].UUID != "not-a-uuid" {
		t.Errorf("%v %+v", err, r.VTPMGuests)
	}
}
