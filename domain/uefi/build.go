package uefi

import (
	"encoding/binary"
	"unicode/utf16"
)

// BuildVarStore writes a 64 KiB firmware volume holding an authenticated
// variable store with vars, laid out as OVMF lays it out (volume header
// with a block map, store header, 4-byte aligned records, erased tail):
// for tests, and for writing a marker variable into a guest's NVRAM copy.
// A zero State is written as VAR_ADDED.
func BuildVarStore(vars []Variable) []byte {
	return buildVarStore(vars, 64<<10)
}

// buildVarStore is BuildVarStore with a store of storeSize bytes: the
// tests' large stores (AAVMF's are 64 MiB) are laid out the same way.
func buildVarStore(vars []Variable, storeSize int) []byte {
	le := binary.LittleEndian
	const hdrLen = 72
	b := make([]byte, hdrLen+storeSize)
	fvGUID := MustGUID("fff12b8d-7696-4c8b-a985-2747075b4f50") // gEfiSystemNvDataFvGuid
	copy(b[16:32], fvGUID[:])
	le.PutUint64(b[32:], uint64(len(b)))
	copy(b[40:], "_FVH")
	le.PutUint16(b[48:], hdrLen)
	le.PutUint32(b[56:], uint32(len(b)/4096)) // block map: n blocks of 4 KiB, then {0,0}
	le.PutUint32(b[60:], 4096)
	st := b[hdrLen:]
	copy(st[0:16], AuthVariableGUID[:])
	le.PutUint32(st[16:], uint32(storeSize))
	st[20], st[21] = 0x5A, 0xFE // formatted, healthy
	for i := storeHdrLen; i < len(st); i++ {
		st[i] = 0xFF
	}
	off := storeHdrLen
	for _, v := range vars {
		var name []byte
		for _, c := range utf16.Encode([]rune(v.Name + "\x00")) {
			name = le.AppendUint16(name, c)
		}
		if off+authHdrLen+len(name)+len(v.Data) > len(st) {
			break // full: the rest is not written
		}
		state := v.State
		if state == 0 {
			state = varAdded
		}
		putRecord(st[off:], state, v, name)
		off = (off + authHdrLen + len(name) + len(v.Data) + 3) &^ 3
	}
	return b
}

// SignatureList writes one EFI_SIGNATURE_LIST of entries of one type and
// one size (an X.509 list holds one certificate unless sizes agree).
func SignatureList(typ, owner GUID, entries ...[]byte) []byte {
	le := binary.LittleEndian
	size := 16 + len(entries[0])
	b := append([]byte{}, typ[:]...)
	b = le.AppendUint32(b, uint32(sigListHdrLen+size*len(entries)))
	b = le.AppendUint32(b, 0)
	b = le.AppendUint32(b, uint32(size))
	for _, e := range entries {
		b = append(b, owner[:]...)
		b = append(b, e...)
	}
	return b
}

// putRecord writes one authenticated variable record (header, UCS-2
// name, data) at the start of r, which must hold it: the one layout
// BuildVarStore and AppendVariable both write.
func putRecord(r []byte, state byte, v Variable, name []byte) {
	le := binary.LittleEndian
	le.PutUint16(r[0:], startID)
	r[2], r[3] = state, 0
	le.PutUint32(r[4:], v.Attributes)
	le.PutUint64(r[8:], v.MonotonicCount)
	copy(r[16:32], v.TimeStamp[:])
	le.PutUint32(r[32:], v.PubKeyIndex)
	le.PutUint32(r[36:], uint32(len(name)))
	le.PutUint32(r[40:], uint32(len(v.Data)))
	copy(r[44:60], v.Vendor[:])
	copy(r[60:], name)
	copy(r[60+len(name):], v.Data)
}
