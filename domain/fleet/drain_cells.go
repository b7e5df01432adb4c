package fleet

import (
	"fmt"
)

// Cells: Nova moves a guest only within its cell; the host reports say
// which cell each compute is in (hostcheck.HostInfo.SameCell).

// cellKnown: the host's report names its cell.
func cellKnown(h *DrainHost) bool { return h.Report != nil && h.Report.Facts.CellKnown() }

// sameCell: whether h is in src's cell, known false when the reports
// cannot tell (hostcheck.HostInfo.SameCell: overlapping broker nodes).
func sameCell(src, h *DrainHost) (same, known bool) {
	if src.Report == nil || h.Report == nil {
		return false, false
	}
	return src.Report.Facts.SameCell(&h.Report.Facts)
}

// cellNote: the cells as compared, one short clause per guest at the
// end of its reason: the hosts
// of another cell left out, or the destinations whose cell is unknown
// (kept: Nova may still refuse them).
func cellNote(src DrainHost, dest []*DrainHost, otherCell int) string {
	note := ""
	if otherCell > 0 {
		note = fmt.Sprintf("; %d host(s) in another cell left out", otherCell)
	}
	if len(dest) == 0 {
		return note
	}
	if !cellKnown(&src) {
		return note + "; cells not compared (the source's cell is unknown)"
	}
	unknown := 0
	for _, h := range dest {
		if _, known := sameCell(&src, h); !known {
			unknown++
		}
	}
	if unknown > 0 {
		note += fmt.Sprintf("; cells not compared for %d destination(s) (cell unknown)", unknown)
	}
	return note
}

// otherCellOf: h's report and src's name different cells.
func otherCellOf(src, h *DrainHost) bool {
	same, known := sameCell(src, h)
	return known && !same
}
