// Package uefi reads OVMF/AAVMF variable files: the firmware volume, the
// (authenticated) variable store in it, and the EFI signature lists of the
// Secure Boot variables PK, KEK, db and dbx.
//
// The parser is written here rather than taken from
// github.com/foxboron/go-uefi because this project's module proxy does not
// serve that module. Every length in the file is checked against the bytes
// that are really there before it is used, so a hostile file yields an
// error, never a panic or an allocation larger than the file.
package uefi

import (
	"encoding/binary"
	"fmt"
	"unicode/utf16"

	"github.com/vtpmctl/vtpmctl/internal/infile"
)

// MaxFileBytes caps a variable file read from disk: AAVMF's are 64 MiB,
// OVMF's 128 KiB to 4 MiB.
const MaxFileBytes = 128 << 20

// GUID is an EFI_GUID as stored: its first three fields little-endian.
type GUID [16]byte

func (g GUID) String() string {
	le := binary.LittleEndian
	return fmt.Sprintf("%08x-%04x-%04x-%x-%x", le.Uint32(g[0:4]), le.Uint16(g[4:6]), le.Uint16(g[6:8]), g[8:10], g[10:16])
}

// MustGUID parses the canonical text form; for constants only.
func MustGUID(s string) GUID {
	var a, b, c uint32
	var d [8]byte
	if n, err := fmt.Sscanf(s, "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x", &a, &b, &c,
		&d[0], &d[1], &d[2], &d[3], &d[4], &d[5], &d[6], &d[7]); err != nil || n != 11 {
		panic("uefi: bad GUID constant " + s)
	}
	var g GUID
	binary.LittleEndian.PutUint32(g[0:], a)
	binary.LittleEndian.PutUint16(g[4:], uint16(b))
	binary.LittleEndian.PutUint16(g[6:], uint16(c))
	copy(g[8:], d[:])
	return g
}

var (
	// AuthVariableGUID (gEfiAuthenticatedVariableGuid) marks a store of
	// AUTHENTICATED_VARIABLE_HEADERs, VariableGUID one of the plain ones.
	AuthVariableGUID = MustGUID("aaf32c78-947b-439a-a180-2e144ec37792")
	VariableGUID     = MustGUID("ddcf3616-3275-4164-98b6-fe85707ffe7d")
	// GlobalVariable (EFI_GLOBAL_VARIABLE) owns PK and KEK;
	// ImageSecurityDatabase owns db and dbx.
	GlobalVariable        = MustGUID("8be4df61-93ca-11d2-aa0d-00e098032b8c")
	ImageSecurityDatabase = MustGUID("d719b2cb-3d3a-4596-a3bc-dad00e67656f")
)

const (
	fvHeaderMin  = 56 + 8 // EFI_FIRMWARE_VOLUME_HEADER with an empty block map's terminator
	storeHdrLen  = 28     // VARIABLE_STORE_HEADER
	authHdrLen   = 60     // AUTHENTICATED_VARIABLE_HEADER (packed)
	plainHdrLen  = 32     // VARIABLE_HEADER
	startID      = 0x55AA
	varAdded     = 0x3F // VAR_ADDED: the record holds the variable's value
	varAddedTran = 0x3E // VAR_ADDED & VAR_IN_DELETED_TRANSITION: valid until its replacement lands
)

// Variable is one live UEFI variable.
type Variable struct {
	Name           string
	Vendor         GUID
	Attributes     uint32
	MonotonicCount uint64
	TimeStamp      [16]byte // EFI_TIME, raw
	PubKeyIndex    uint32
	Data           []byte // a slice of the file's bytes
	State          uint8
}

// VarStore is the content of a variable file.
type VarStore struct {
	Authenticated bool
	Variables     []Variable // live records, in file order
}

// Get returns the live variable name of vendor.
func (s *VarStore) Get(name string, vendor GUID) (*Variable, bool) {
	for i := range s.Variables {
		if v := &s.Variables[i]; v.Name == name && v.Vendor == vendor {
			return v, true
		}
	}
	return nil, false
}

// ReadFile reads a variable file from disk (regular files only, capped).
func ReadFile(path string) (*VarStore, error) {
	b, err := infile.ReadFile(path, MaxFileBytes)
	if err != nil {
		return nil, err
	}
	s, err := ReadVarStore(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// ReadVarStore parses a variable file: a firmware volume (_FVH) whose body
// starts with a variable store header. Deleted records and records whose
// header alone was written are dropped; a record in deleted transition
// counts only when no complete replacement follows.
func ReadVarStore(b []byte) (*VarStore, error) {
	le := binary.LittleEndian
	if len(b) < fvHeaderMin {
		return nil, fmt.Errorf("%d bytes: too short for a firmware volume header", len(b))
	}
	if string(b[40:44]) != "_FVH" {
		return nil, fmt.Errorf("no firmware volume signature _FVH at offset 40")
	}
	fvLen := le.Uint64(b[32:40])
	if fvLen > uint64(len(b)) || fvLen < fvHeaderMin {
		return nil, fmt.Errorf("firmware volume length %d does not fit the file's %d bytes", fvLen, len(b))
	}
	fv := b[:fvLen]
	hdrLen := uint64(le.Uint16(b[48:50]))
	if hdrLen < fvHeaderMin || hdrLen+storeHdrLen > fvLen {
		return nil, fmt.Errorf("firmware volume header length %d out of range", hdrLen)
	}
	st := fv[hdrLen:]
	var sig GUID
	copy(sig[:], st[:16])
	s := &VarStore{}
	recHdr := uint64(plainHdrLen)
	switch sig {
	case AuthVariableGUID:
		s.Authenticated, recHdr = true, authHdrLen
	case VariableGUID:
	default:
		return nil, fmt.Errorf("variable store at offset %d has unknown signature %s", hdrLen, sig)
	}
	size := uint64(le.Uint32(st[16:20]))
	if size < storeHdrLen || size > uint64(len(st)) {
		return nil, fmt.Errorf("variable store size %d does not fit the %d bytes after the volume header", size, len(st))
	}
	st = st[:size]
	pending := map[string]int{} // name+vendor → index of a record in deleted transition
	for off := uint64(storeHdrLen); off+recHdr <= size; {
		r := st[off:]
		if le.Uint16(r[0:2]) != startID {
			break // erased flash: the end of the records
		}
		v := Variable{State: r[2], Attributes: le.Uint32(r[4:8])}
		var nameSize, dataSize uint64
		if s.Authenticated {
			v.MonotonicCount = le.Uint64(r[8:16])
			copy(v.TimeStamp[:], r[16:32])
			v.PubKeyIndex = le.Uint32(r[32:36])
			nameSize, dataSize = uint64(le.Uint32(r[36:40])), uint64(le.Uint32(r[40:44]))
			copy(v.Vendor[:], r[44:60])
		} else {
			nameSize, dataSize = uint64(le.Uint32(r[8:12])), uint64(le.Uint32(r[12:16]))
			copy(v.Vendor[:], r[16:32])
		}
		at := hdrLen + off
		if nameSize+dataSize > size-off-recHdr { // both < 2^32: no overflow
			return nil, fmt.Errorf("variable record at offset %d: name %d + data %d bytes run past the store's end", at, nameSize, dataSize)
		}
		if nameSize%2 != 0 {
			return nil, fmt.Errorf("variable record at offset %d: name size %d is odd (names are UTF-16)", at, nameSize)
		}
		name := r[recHdr : recHdr+nameSize]
		v.Data = r[recHdr+nameSize : recHdr+nameSize+dataSize]
		next := off + recHdr + nameSize + dataSize
		off = (next + 3) &^ 3
		if v.State != varAdded && v.State != varAddedTran {
			continue // deleted, or only its header was written
		}
		v.Name = utf16Name(name)
		key := v.Name + "\x00" + v.Vendor.String()
		if i, ok := pending[key]; ok { // its replacement: the old copy goes
			s.Variables = append(s.Variables[:i], s.Variables[i+1:]...)
			delete(pending, key)
			for k, j := range pending {
				if j > i {
					pending[k] = j - 1
				}
			}
		}
		if v.State == varAddedTran {
			pending[key] = len(s.Variables)
		}
		s.Variables = append(s.Variables, v)
	}
	return s, nil
}

// utf16Name decodes a NUL-terminated UTF-16LE name.
func utf16Name(b []byte) string {
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		c := binary.LittleEndian.Uint16(b[i:])
		if c == 0 {
			break
		}
		u = append(u, c)
	}
	return string(utf16.Decode(u))
}
