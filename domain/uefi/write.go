package uefi

import (
	"encoding/binary"
	"fmt"
	"unicode/utf16"
)

// AppendVariable returns a copy of a variable file with v appended after
// its last record, as the firmware itself adds a variable: a VAR_ADDED
// record in the erased space at the end of the store. An existing
// variable of the same name and vendor stays and is shadowed by nothing:
// callers append names the file does not hold (the integration tests'
// NVRAM marker). Only authenticated stores (every OVMF template since
// edk2 2012) are written; a plain one is refused.
func AppendVariable(file []byte, v Variable) ([]byte, error) {
	s, err := ReadVarStore(file)
	if err != nil {
		return nil, err
	}
	if !s.Authenticated {
		return nil, fmt.Errorf("not an authenticated variable store: not written")
	}
	if _, ok := s.Get(v.Name, v.Vendor); ok {
		return nil, fmt.Errorf("variable %s of %s is already in the store", v.Name, v.Vendor)
	}
	le := binary.LittleEndian
	hdrLen := uint64(le.Uint16(file[48:50]))
	size := uint64(le.Uint32(file[hdrLen+16 : hdrLen+20]))
	st := file[hdrLen : hdrLen+size]
	// The end of the records: the same walk as ReadVarStore, which has
	// already checked every length on it.
	off := uint64(storeHdrLen)
	for off+authHdrLen <= size && le.Uint16(st[off:off+2]) == startID {
		n, d := recordSizes(st[off+2], le.Uint32(st[off+4:]), le.Uint32(st[off+36:off+40]), le.Uint32(st[off+40:off+44]))
		off = (off + authHdrLen + n + d + 3) &^ 3
	}
	var name []byte
	for _, c := range utf16.Encode([]rune(v.Name + "\x00")) {
		name = le.AppendUint16(name, c)
	}
	need := uint64(authHdrLen + len(name) + len(v.Data))
	if off > size || need > size-off {
		return nil, fmt.Errorf("variable %s: %d bytes do not fit the %d erased bytes left in the store", v.Name, need, size-min(off, size))
	}
	for _, c := range st[off : off+need] {
		if c != 0xFF {
			return nil, fmt.Errorf("variable %s: the space after the last record at offset %d is not erased flash", v.Name, hdrLen+off)
		}
	}
	out := append([]byte{}, file...)
	putRecord(out[hdrLen+off:], varAdded, v, name)
	return out, nil
}
