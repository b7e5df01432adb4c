package uefi

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

// FuzzAddMicrosoft2023: whatever the file, AddMicrosoft2023 does not
// panic; what it returns is a file of the same length that reads back,
// and that a rerun leaves byte for byte; a refusal returns no file.
//
// The fuzzed input is a store's records, put into a store of 4 to 11
// KiB (the update needs about 6.3 KiB): a whole file would be 8 KiB at
// least, and Go's minimizer then spends its minute on each new input.
// With raw set the input is the whole file instead (the headers'
// checks). The seeds: a PK, and 2011-like KEK and db of short stand-in
// entries, which the update fits appended, only compacted (a deleted
// record in the way), or not at all; a KEK in transition; no KEK; no PK.
func FuzzAddMicrosoft2023(f *testing.F) {
	entry := func(s string) []byte { return sigList(CertX509GUID, ownerA, []byte(s)) }
	pk := Variable{Name: "PK", Vendor: GlobalVariable, Attributes: sbAttributes, Data: entry("pk")}
	kek := Variable{Name: "KEK", Vendor: GlobalVariable, Attributes: sbAttributes, Data: entry("kek 2011")}
	db := Variable{Name: "db", Vendor: ImageSecurityDatabase, Attributes: sbAttributes, Data: append(entry("windows 2011"), sigList(CertSHA256GUID, ownerA, make([]byte, 32))...)}
	lang := Variable{Name: "Lang", Vendor: GlobalVariable, Attributes: 0x7, Data: []byte("eng")}
	gone := Variable{Name: "Gone", Vendor: ownerA, State: 0x3C, Data: make([]byte, 2000)}
	tran := kek
	tran.State = varAddedTran
	records := func(vs ...Variable) []byte {
		b := buildVarStore(vs, 4<<10)
		return b[72+storeHdrLen : 72+storeHdrLen+recordsEnd(f, b)]
	}
	f.Add(records(pk, kek, db, lang), uint8(4), false)
	f.Add(records(gone, pk, kek, db), uint8(4), false)
	f.Add(records(pk, kek, db), uint8(0), false)
	f.Add(records(pk, db, tran), uint8(4), false)
	f.Add(records(pk, db), uint8(4), false)
	f.Add(records(kek, db), uint8(4), false)
	f.Add(buildVarStore(nil, 4<<10)[:200], uint8(0), true)
	f.Add([]byte("_FVH"), uint8(0), true)
	now := time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, in []byte, kib uint8, raw bool) {
		b := in
		if !raw {
			b = buildVarStore(nil, (4+int(kib%8))<<10)
			copy(b[72+storeHdrLen:], in)
		}
		orig := bytes.Clone(b)
		out, up, err := AddMicrosoft2023(b, now)
		if !bytes.Equal(orig, b) {
			t.Fatal("the input was changed")
		}
		if err != nil {
			var nr *NoRoomError
			if out != nil || errors.As(err, &nr) && nr.Need <= nr.Free {
				t.Fatalf("%v, with %d bytes of output", err, len(out))
			}
			return
		}
		if len(out) != len(b) || (len(up.Added) == 0 && !bytes.Equal(out, b)) {
			t.Fatalf("%d bytes out of %d, %d added", len(out), len(b), len(up.Added))
		}
		s, err := ReadVarStore(out)
		if err != nil {
			t.Fatalf("the output does not read back: %v", err)
		}
		if _, err := s.SecureBoot(); err != nil {
			t.Fatalf("the output's Secure Boot variables do not read back: %v", err)
		}
		again, up2, err := AddMicrosoft2023(out, now)
		if err != nil || len(up2.Added) != 0 || !bytes.Equal(again, out) {
			t.Fatalf("rerun: %v, %d added, same bytes %v", err, len(up2.Added), bytes.Equal(again, out))
		}
	})
}
