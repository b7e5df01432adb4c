package uefi

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// FuzzWalksAgree: the reader (varstore.go) and the firmware's walk
// (firmware.go), written apart, agree on every store both accept: where
// the records end, and each name's value (the first VAR_ADDED copy, else
// the last in transition). Neither panics on any input. The input is a
// store's records (raw: the whole file).
func FuzzWalksAgree(f *testing.F) {
	v := func(name string, state uint8, data string) Variable {
		return Variable{Name: name, Vendor: GlobalVariable, Attributes: 0x7, State: state, Data: []byte(data)}
	}
	records := func(vs ...Variable) []byte {
		b := buildVarStore(vs, 4<<10)
		return b[72+storeHdrLen : 72+storeHdrLen+recordsEnd(f, b)]
	}
	remnant := make([]byte, authHdrLen)
	binary.LittleEndian.PutUint16(remnant, startID)
	remnant[2] = 0xFF
	binary.LittleEndian.PutUint32(remnant[36:], 10)
	binary.LittleEndian.PutUint32(remnant[40:], 100)
	f.Add(records(v("A", varAdded, "a"), v("B", varAddedTran, "b"), v("B", varAdded, "c")), false)
	f.Add(records(v("A", varAdded, "a"), v("A", varAddedTran, "b")), false)
	f.Add(records(v("A", varAddedTran, "a"), v("A", varAddedTran, "b"), v("C", 0x3C, "x")), false)
	f.Add(records(v("A", varAdded, "a"), v("A", varAdded, "b")), false)
	f.Add(append(records(v("A", varAdded, "a")), remnant...), false)
	f.Add(append(append(records(v("A", varAdded, "a")), remnant...), records(v("B", varAdded, "b"))...), false)
	f.Add(buildVarStore(nil, 4<<10)[:200], true)
	f.Fuzz(func(t *testing.T, in []byte, raw bool) {
		b := in
		if !raw {
			b = buildVarStore(nil, 4<<10)
			copy(b[72+storeHdrLen:], in)
		}
		s, rerr := ReadVarStore(b)
		fw, ferr := ViewAsFirmware(b)
		if rerr != nil || ferr != nil || len(fw.BadNames) > 0 { // names the firmware matches by prefix: refused, not compared
			return
		}
		if hdr := int(binary.LittleEndian.Uint16(b[48:])); hdr+int(s.end) != fw.LastVariable {
			t.Fatalf("the reader's records end at %d, the firmware's at %d", hdr+int(s.end), fw.LastVariable)
		}
		copies := 0
		for _, w := range fw.Values {
			r, ok := s.Get(w.Name, w.Vendor)
			if !ok || !bytes.Equal(r.Data, w.Data) || r.Attributes != w.Attributes {
				t.Fatalf("%q: the firmware reads %q, the reader %v", w.Name, w.Data, r)
			}
			copies += max(w.AddedCopies, 1)
		}
		if copies != len(s.Variables) {
			t.Fatalf("the reader keeps %d records, the firmware's walk accounts for %d", len(s.Variables), copies)
		}
	})
}
