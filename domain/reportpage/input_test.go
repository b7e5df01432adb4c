package reportpage

import (
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/infile/infiletest"
)

// `report --from` reads files someone handed us: a FIFO must not hang
// the page (before: open blocked for ever) and a link to /dev/zero must
// not be read until memory runs out.
func TestLoadRefusesNonRegular(t *testing.T) {
	infiletest.Refused(t, "fleet.json", func(path string) error { var in Inputs; return in.Load(path) })
}
