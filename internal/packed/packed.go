// Package packed holds what the packed tables of an audit share (the
// guests of an inventory, the secrets of an audit): strings kept once
// and addressed by index, and UUIDs kept as their 16 bytes.
package packed

import "encoding/hex"

// Strings keeps each distinct string once; Index is its key, At gives it
// back. A plain copy shares the original's storage, so only one of the
// two may add; Copy makes one that adds on its own.
type Strings struct {
	list  []string
	index map[string]uint32
}

// Index is s's key, adding s when it is new.
func (t *Strings) Index(s string) uint32 {
	if i, ok := t.index[s]; ok {
		return i
	}
	if t.index == nil {
		t.index = map[string]uint32{}
	}
	i := uint32(len(t.list))
	t.list = append(t.list, s)
	t.index[s] = i
	return i
}

// Copy is t with its own map: a copy's Index then adds to its own.
func (t Strings) Copy() Strings {
	c := Strings{list: t.list[:len(t.list):len(t.list)], index: make(map[string]uint32, len(t.list))}
	for i, s := range t.list {
		c.index[s] = uint32(i)
	}
	return c
}

// At is the string of key i.
func (t Strings) At(i uint32) string { return t.list[i] }

// UUID reads a lowercase UUID (8-4-4-4-12); any other string is not one
// here, so that FormatUUID gives back the same string.
func UUID(s string) (u [16]byte, ok bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, false
	}
	var hx [32]byte
	n := 0
	for i := 0; i < 36; i++ {
		c := s[i]
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			continue
		case c >= '0' && c <= '9' || c >= 'a' && c <= 'f':
			hx[n] = c
			n++
		default:
			return u, false
		}
	}
	if _, err := hex.Decode(u[:], hx[:]); err != nil {
		return u, false
	}
	return u, true
}

// CanonicalUUID is s, a UUID in its 8-4-4-4-12 hex form in either case,
// in the one form UUID reads (lower case); ok is false for anything
// else. OpenStack stores its UUIDs in lower case, and a database that
// compares case (PostgreSQL) finds nothing for another form.
func CanonicalUUID(s string) (string, bool) {
	if _, ok := UUID(s); ok {
		return s, true
	}
	if len(s) != 36 {
		return "", false
	}
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'F' {
			b[i] = c + 'a' - 'A'
		}
	}
	if _, ok := UUID(string(b)); !ok {
		return "", false
	}
	return string(b), true
}

// FormatUUID is u as UUID reads it.
func FormatUUID(u [16]byte) string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return string(b[:])
}
