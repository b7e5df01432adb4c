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
	"context"
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

// MarshalText: JSON shows a GUID in its canonical text form.
func (g GUID) MarshalText() ([]byte, error) { return []byte(g.String()), nil }

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
	// stateErased: the header was written, its State not yet (the first
	// of edk2's four steps). The firmware gives such a record no name and
	// no data (NameSizeOfVariable and DataSizeOfVariable answer 0), as
	// it does a header whose NameSize, DataSize or Attributes is all
	// ones: the next record is right after the header.
	stateErased = 0xFF
	allOnes32   = 0xFFFFFFFF
)

// recordSizes is a record's name and data sizes as the firmware walks
// them: both 0 for a header edk2 treats as interrupted (see
// stateErased), else the header's own.
func recordSizes(state uint8, attrs, nameSize, dataSize uint32) (uint64, uint64) {
	if state == stateErased || attrs == allOnes32 || nameSize == allOnes32 || dataSize == allOnes32 {
		return 0, 0
	}
	return uint64(nameSize), uint64(dataSize)
}

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
	end           uint64     // store offset where the walk of the records ended
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
	return ReadFileContext(context.Background(), path)
}

// ReadFileContext is ReadFile stopping with ctx's error once ctx is done:
// host check reads guests' NVRAM files (AAVMF's are 64 MiB) and must
// still end promptly on SIGINT or SIGTERM.
func ReadFileContext(ctx context.Context, path string) (*VarStore, error) {
	b, err := infile.ReadFile(path, MaxFileBytes)
	if err != nil {
		return nil, err
	}
	s, err := ReadVarStoreContext(ctx, b)
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
	return ReadVarStoreContext(context.Background(), b)
}

// ReadVarStoreContext is ReadVarStore stopping with ctx's error once ctx
// is done. Its time is linear in the file's size.
func ReadVarStoreContext(ctx context.Context, b []byte) (*VarStore, error) {
	var w recordWalk
	return w.read(ctx, b)
}

// checkEvery: records (or signature entries) between two looks at the
// context: ~0.1 ms of work, so a cancelled parse stops at once while
// the check costs nothing measurable.
const checkEvery = 1024

// recordWalk is one pass over a store's records, as edk2's
// VariableParsing.c walks them. steps counts the loop iterations
// (records walked, records dropped): the tests bound it by the number of
// records.
type recordWalk struct {
	hdrLen uint64 // the volume header's: offsets in errors are the file's
	recHdr uint64
	st     []byte // the store, from its header to its size
	vars   []Variable
	tran   int // records in deleted transition among vars
	steps  int
}

type varKey struct {
	name   string
	vendor GUID
}

func (w *recordWalk) read(ctx context.Context, b []byte) (*VarStore, error) {
	s, err := w.open(b)
	if err != nil {
		return nil, err
	}
	if err := w.prepare(ctx, s.Authenticated); err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	size := uint64(len(w.st))
	off := uint64(storeHdrLen)
	for n := 0; off+2 <= size; n++ {
		if n%checkEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		w.steps++
		if le.Uint16(w.st[off:off+2]) != startID {
			break // erased flash: the end of the records
		}
		if off+w.recHdr > size {
			return nil, fmt.Errorf("variable record at offset %d: its header runs past the store's end", w.hdrLen+off)
		}
		if off, err = w.record(off, s.Authenticated); err != nil {
			return nil, err
		}
	}
	s.end = min(off, size)
	s.Variables = w.resolve()
	return s, nil
}

// prepare sizes vars for the live records, counted by a first walk over
// the headers alone: appending to a slice grown by append costs five
// times its final size in a large store.
func (w *recordWalk) prepare(ctx context.Context, auth bool) error {
	le := binary.LittleEndian
	sizes := uint64(8) // NameSize, DataSize in a plain header
	if auth {
		sizes = 36
	}
	size := uint64(len(w.st))
	live := 0
	for off, k := uint64(storeHdrLen), 0; off+w.recHdr <= size && le.Uint16(w.st[off:]) == startID; k++ {
		if k%checkEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		w.steps++
		state := w.st[off+2]
		if state == varAdded || state == varAddedTran {
			live++
		}
		n, d := recordSizes(state, le.Uint32(w.st[off+4:]), le.Uint32(w.st[off+sizes:]), le.Uint32(w.st[off+sizes+4:]))
		off = (off + w.recHdr + n + d + 3) &^ 3 // past the end when the lengths are wrong: read reports it
	}
	w.vars = make([]Variable, 0, live)
	return nil
}

// open checks the volume and store headers and sets up the walk.
func (w *recordWalk) open(b []byte) (*VarStore, error) {
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
	w.hdrLen = uint64(le.Uint16(b[48:50]))
	if w.hdrLen < fvHeaderMin || w.hdrLen+storeHdrLen > fvLen {
		return nil, fmt.Errorf("firmware volume header length %d out of range", w.hdrLen)
	}
	st := fv[w.hdrLen:]
	var sig GUID
	copy(sig[:], st[:16])
	s := &VarStore{}
	w.recHdr = plainHdrLen
	switch sig {
	case AuthVariableGUID:
		s.Authenticated, w.recHdr = true, authHdrLen
	case VariableGUID:
	default:
		return nil, fmt.Errorf("variable store at offset %d has unknown signature %s", w.hdrLen, sig)
	}
	size := uint64(le.Uint32(st[16:20]))
	if size < storeHdrLen || size > uint64(len(st)) {
		return nil, fmt.Errorf("variable store size %d does not fit the %d bytes after the volume header", size, len(st))
	}
	if size%4 != 0 {
		// GetEndPointer rounds the end up: the firmware would read a
		// header across the store's end where this walk stops.
		return nil, fmt.Errorf("variable store size %d is not a multiple of 4", size)
	}
	w.st = st[:size]
	return s, nil
}

// record reads the record at off and returns the next one's offset.
func (w *recordWalk) record(off uint64, auth bool) (uint64, error) {
	le := binary.LittleEndian
	r := w.st[off:]
	v := Variable{State: r[2], Attributes: le.Uint32(r[4:8])}
	var nameSize, dataSize uint64
	if auth {
		v.MonotonicCount = le.Uint64(r[8:16])
		copy(v.TimeStamp[:], r[16:32])
		v.PubKeyIndex = le.Uint32(r[32:36])
		nameSize, dataSize = recordSizes(v.State, v.Attributes, le.Uint32(r[36:40]), le.Uint32(r[40:44]))
		copy(v.Vendor[:], r[44:60])
	} else {
		nameSize, dataSize = recordSizes(v.State, v.Attributes, le.Uint32(r[8:12]), le.Uint32(r[12:16]))
		copy(v.Vendor[:], r[16:32])
	}
	at := w.hdrLen + off
	if nameSize+dataSize > uint64(len(r))-w.recHdr { // both < 2^32: no overflow
		return 0, fmt.Errorf("variable record at offset %d: name %d + data %d bytes run past the store's end", at, nameSize, dataSize)
	}
	if nameSize%2 != 0 {
		return 0, fmt.Errorf("variable record at offset %d: name size %d is odd (names are UTF-16)", at, nameSize)
	}
	name := r[w.recHdr : w.recHdr+nameSize]
	v.Data = r[w.recHdr+nameSize : w.recHdr+nameSize+dataSize]
	next := (off + w.recHdr + nameSize + dataSize + 3) &^ 3
	if v.State == varAdded || v.State == varAddedTran { // else deleted, or not (wholly) written
		v.Name = utf16Name(name)
		if v.State == varAddedTran {
			w.tran++
		}
		w.vars = append(w.vars, v)
	}
	return next, nil
}

// resolve keeps the records the firmware reads as their variables'
// values, in file order. FindVariableEx takes the first VAR_ADDED copy
// of a name; a copy in deleted transition only when the name has no
// VAR_ADDED copy anywhere, and then the last one. Several VAR_ADDED
// copies all stay (edk2's reclaim keeps them all too): the callers
// refuse to write over such a store. Only the names with a copy in
// transition are mapped, so a store without one costs no map.
func (w *recordWalk) resolve() []Variable {
	if w.tran == 0 {
		return w.vars
	}
	type seen struct {
		added    bool
		lastTran int
	}
	m := make(map[varKey]*seen, w.tran)
	for i := range w.vars {
		w.steps++
		if v := &w.vars[i]; v.State == varAddedTran {
			k := varKey{v.Name, v.Vendor}
			if e, ok := m[k]; ok {
				e.lastTran = i
			} else {
				m[k] = &seen{lastTran: i}
			}
		}
	}
	for i := range w.vars {
		w.steps++
		if v := &w.vars[i]; v.State == varAdded {
			if e, ok := m[varKey{v.Name, v.Vendor}]; ok {
				e.added = true
			}
		}
	}
	out := w.vars[:0]
	for i, v := range w.vars {
		w.steps++
		if v.State == varAddedTran {
			if e := m[varKey{v.Name, v.Vendor}]; e.added || e.lastTran != i {
				continue
			}
		}
		out = append(out, v)
	}
	clear(w.vars[len(out):])
	return out
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
