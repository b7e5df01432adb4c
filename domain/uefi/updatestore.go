package uefi

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"unicode/utf16"
)

// Store header and record states AddMicrosoft2023 writes or expects.
const (
	storeFormatted = 0x5A // VARIABLE_STORE_FORMATTED
	storeHealthy   = 0xFE // VARIABLE_STORE_HEALTHY
	// deletedMask clears VAR_IN_DELETED_TRANSITION and VAR_DELETED's
	// bits: a deleted record's state as edk2 leaves it (0x3C), reached
	// from either live state by clearing bits only, as flash is written.
	deletedMask = 0xFC
)

// storeLayout is where a store's records lie in its file: the reader
// keeps values, not places, and an update marks records and appends.
type storeLayout struct {
	base int         // the store header's offset in the file
	size int         // the store's size, header included
	end  int         // store offset past the last record (4-aligned, at most size)
	recs []rawRecord // every record, in file order
}

type rawRecord struct {
	off, n int // store offset; header, name and data, without padding
	state  byte
	key    varKey
	live   bool // the reader keeps it
}

// layout walks the records of a store ReadVarStore has read (so every
// length on the walk is already checked) and holds the walk to the
// reader's account of which records are live.
func layout(file []byte, s *VarStore) (*storeLayout, error) {
	le := binary.LittleEndian
	base := int(le.Uint16(file[48:50]))
	st := file[base:]
	if st[20] != storeFormatted || st[21] != storeHealthy {
		return nil, fmt.Errorf("variable store header: format %#x, state %#x, not a formatted healthy store (%#x, %#x): not written", st[20], st[21], storeFormatted, storeHealthy)
	}
	l := &storeLayout{base: base, size: int(le.Uint32(st[16:20])), end: storeHdrLen}
	st = st[:l.size]
	for off := storeHdrLen; off+authHdrLen <= l.size && le.Uint16(st[off:]) == startID; {
		state := st[off+2]
		n, d := recordSizes(state, le.Uint32(st[off+4:]), le.Uint32(st[off+36:]), le.Uint32(st[off+40:]))
		nameSize, dataSize := int(n), int(d)
		r := rawRecord{off: off, n: authHdrLen + nameSize + dataSize, state: state}
		copy(r.key.vendor[:], st[off+44:off+60])
		r.key.name = utf16Name(st[off+authHdrLen : off+authHdrLen+nameSize])
		r.live = state == varAdded || state == varAddedTran
		l.recs = append(l.recs, r)
		off = align4(off + r.n)
		l.end = min(off, l.size)
	}
	l.firmwareValues()
	i := 0
	for _, r := range l.recs {
		if !r.live {
			continue
		}
		if i >= len(s.Variables) || s.Variables[i].Name != r.key.name || s.Variables[i].Vendor != r.key.vendor {
			return nil, fmt.Errorf("the store's records (live record %d, %s) do not walk as the reader read them: not written", i, r.key.name)
		}
		i++
	}
	if i != len(s.Variables) {
		return nil, fmt.Errorf("the store's records walk to %d live variables, the reader read %d: not written", i, len(s.Variables))
	}
	return l, nil
}

// firmwareValues clears live on every record the firmware does not read
// as its name's value: a copy in deleted transition where the name has a
// VAR_ADDED copy, or a later copy in transition. (The same rule as the
// reader's resolve, written over raw records: layout holds the two to
// each other.)
func (l *storeLayout) firmwareValues() {
	added := map[varKey]bool{}
	lastTran := map[varKey]int{}
	for i, r := range l.recs {
		switch {
		case r.state == varAdded:
			added[r.key] = true
		case r.state == varAddedTran:
			lastTran[r.key] = i
		}
	}
	for i := range l.recs {
		if r := &l.recs[i]; r.state == varAddedTran && (added[r.key] || lastTran[r.key] != i) {
			r.live = false
		}
	}
}

// write returns the file with p's variables written: appended after the
// last record, the old copies marked deleted, when they fit the erased
// space there; else in a compacted store. end is the store offset past
// the last record.
func (l *storeLayout) write(file []byte, p *update) (out []byte, end int, compacted bool, err error) {
	recs := make([][]byte, len(p.vars))
	for i, v := range p.vars {
		name := encodeName(v.Name)
		recs[i] = make([]byte, authHdrLen+len(name)+len(v.Data))
		putRecord(recs[i], varAdded, v, name)
	}
	out = bytes.Clone(file)
	st, src := out[l.base:l.base+l.size], file[l.base:l.base+l.size]
	if last, ok := l.fits(l.end, recs); ok && erased(src[l.end:]) {
		for _, r := range l.recs {
			if p.replaces(r.key) && (r.state == varAdded || r.state == varAddedTran) {
				st[r.off+2] &= deletedMask
			}
		}
		return out, place(st, l.end, recs, last, l.size), false, nil
	}
	for i := storeHdrLen; i < l.size; i++ {
		st[i] = 0xFF
	}
	at := storeHdrLen
	for _, r := range l.recs {
		if r.live && !p.replaces(r.key) {
			copy(st[at:], src[r.off:r.off+r.n])
			st[at+2] = varAdded // a record in transition is the value now: edk2's reclaim keeps it so
			at = align4(at + r.n)
		}
	}
	last, ok := l.fits(at, recs)
	if !ok {
		return nil, 0, false, &NoRoomError{Need: last - at, Free: l.size - at}
	}
	return out, place(st, at, recs, last, l.size), true, nil
}

// fits lays recs out from store offset at (4-aligned), each record
// 4-aligned: last is the offset past the last one, ok whether that is
// within the store.
func (l *storeLayout) fits(at int, recs [][]byte) (last int, ok bool) {
	for i, r := range recs {
		if i > 0 {
			at = align4(at)
		}
		at += len(r)
	}
	return at, at <= l.size
}

// place copies recs into st from at, as fits laid them out, and returns
// the store's new end.
func place(st []byte, at int, recs [][]byte, last, size int) int {
	for _, r := range recs {
		at = align4(at)
		copy(st[at:], r)
		at += len(r)
	}
	return min(align4(last), size)
}

// replaces says whether the update writes a new value of key.
func (p *update) replaces(k varKey) bool {
	for _, v := range p.vars {
		if v.Name == k.name && v.Vendor == k.vendor {
			return true
		}
	}
	return false
}

func erased(b []byte) bool {
	for _, c := range b {
		if c != 0xFF {
			return false
		}
	}
	return true
}

func align4(n int) int { return (n + 3) &^ 3 }

// encodeName is a variable name as a record stores it: UTF-16LE with a
// terminating NUL.
func encodeName(s string) []byte {
	var b []byte
	for _, c := range utf16.Encode([]rune(s + "\x00")) {
		b = binary.LittleEndian.AppendUint16(b, c)
	}
	return b
}
