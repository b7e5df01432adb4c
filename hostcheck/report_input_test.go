package hostcheck

import (
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/infile/infiletest"
)

// A host report is a file someone handed us: a FIFO must not hang the
// reader (before: open blocked for ever waiting for a writer) and a
// *.json link to /dev/zero must not be read until memory runs out.
func TestReadReportRefusesNonRegular(t *testing.T) {
	infiletest.Refused(t, "host.json", func(path string) error { _, err := ReadReport(path); return err })
}
