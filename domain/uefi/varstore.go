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

// recordWalk is one pass over a store's records. steps counts the loop
// iterations (records walked, records moved when compacting): the tests
// bound it by the number of records.
type recordWalk struct {
	hdrLen  uint64 // the volume header's: offsets in errors are the file's
	recHdr  uint64
	st      []byte // the store, from its header to its size
	vars    []Variable
	pending map[varKey]int // a record in deleted transition → its index in vars
	dropped int            // replaced records, still in vars with State replaced
	steps   int
}

type varKey struct {
	name   string
	vendor GUID
}

// replaced marks, in State, a record a later one replaced: no record with
// state 0 is kept (only VAR_ADDED and VAR_ADDED in transition are), so
// the mark cannot be mistaken for a live record.
const replaced = 0

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
	for off, n := uint64(storeHdrLen), 0; off+w.recHdr <= size; n++ {
		if n%checkEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		w.steps++
		if le.Uint16(w.st[off:off+2]) != startID {
			break // erased flash: the end of the records
		}
		if off, err = w.record(off, s.Authenticated); err != nil {
			return nil, err
		}
	}
	s.Variables = w.compact()
	return s, nil
}

// prepare sizes vars and pending for the live records, counted by a
// first walk over the headers alone: appending to a slice grown by
// append costs five times its final size in a large store.
func (w *recordWalk) prepare(ctx context.Context, auth bool) error {
	le := binary.LittleEndian
	sizes := 8 // NameSize, DataSize in a plain header
	if auth {
		sizes = 36
	}
	size := uint64(len(w.st))
	live, tran := 0, 0
	for off, k := uint64(storeHdrLen), 0; off+w.recHdr <= size && le.Uint16(w.st[off:]) == startID; k++ {
		if k%checkEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		w.steps++
		switch w.st[off+2] {
		case varAdded:
			live++
		case varAddedTran:
			live, tran = live+1, tran+1
		}
		n, d := uint64(le.Uint32(w.st[off+uint64(sizes):])), uint64(le.Uint32(w.st[off+uint64(sizes)+4:]))
		off = (off + w.recHdr + n + d + 3) &^ 3 // past the end when the lengths are wrong: read reports it
	}
	w.vars = make([]Variable, 0, live)
	if tran > 0 {
		w.pending = make(map[varKey]int, tran)
	}
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
		nameSize, dataSize = uint64(le.Uint32(r[36:40])), uint64(le.Uint32(r[40:44]))
		copy(v.Vendor[:], r[44:60])
	} else {
		nameSize, dataSize = uint64(le.Uint32(r[8:12])), uint64(le.Uint32(r[12:16]))
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
	if v.State == varAdded || v.State == varAddedTran { // else deleted, or only its header was written
		v.Name = utf16Name(name)
		w.add(v)
	}
	return next, nil
}

// add appends a live record. A record in deleted transition is only
// marked when its replacement comes, not cut out of vars: cutting (and
// renumbering the other pending records) made the walk quadratic in the
// number of records: two minutes for a 7.2 MB store.
func (w *recordWalk) add(v Variable) {
	k := varKey{v.Name, v.Vendor}
	if i, ok := w.pending[k]; ok { // its replacement: the old copy goes
		w.vars[i].State = replaced
		w.dropped++
		delete(w.pending, k)
	}
	if v.State == varAddedTran {
		w.pending[k] = len(w.vars)
	}
	w.vars = append(w.vars, v)
}

// compact returns the live records in file order, in one pass.
func (w *recordWalk) compact() []Variable {
	if w.dropped == 0 {
		return w.vars
	}
	out := w.vars[:0]
	for _, v := range w.vars {
		w.steps++
		if v.State != replaced {
			out = append(out, v)
		}
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
