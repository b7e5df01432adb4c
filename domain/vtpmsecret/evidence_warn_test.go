package vtpmsecret

import (
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// TestUndecidedWarnings: servers left undecided because the catalog has
// no block storage, or because its volume list failed, are each said.
func TestUndecidedWarnings(t *testing.T) {
	w := undecidedWarnings(map[nova.Undecided]int{nova.UndecidedNoBlockStorage: 2, nova.UndecidedVolumesUnreadable: 3})
	all := strings.Join(w, "\n")
	if len(w) != 2 || !strings.Contains(all, "2 volume-backed server(s)") || !strings.Contains(all, "3 volume-backed server(s) were not decided: the block storage volume list failed") {
		t.Errorf("%q", w)
	}
}
