package uefi

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"
)

// template4M is Debian's OVMF 4 MiB Secure Boot template (make ovmf
// installs it): its store, FTW working block and spare are the real ones.
func template4M(t testing.TB) []byte {
	b, err := os.ReadFile("/usr/share/OVMF/OVMF_VARS_4M.ms.fd")
	if err != nil {
		t.Fatalf("the real OVMF template is needed (make ovmf): %v", err)
	}
	return b
}

// withRemnant returns store with an interrupted record after its last
// one: a 60-byte header whose State is still 0xFF (edk2's first write
// step done, its second not), with plausible NameSize and DataSize, as
// a guest destroyed mid-write leaves it. It returns the header's offset.
func withRemnant(t testing.TB, store []byte) ([]byte, int) {
	fw, err := ViewAsFirmware(store)
	if err != nil {
		t.Fatal(err)
	}
	out := bytes.Clone(store)
	at := fw.LastVariable
	h := out[at : at+authHdrLen]
	binary.LittleEndian.PutUint16(h[0:], startID)
	h[2] = 0xFF
	binary.LittleEndian.PutUint32(h[4:], 0x27)
	binary.LittleEndian.PutUint32(h[36:], 10)
	binary.LittleEndian.PutUint32(h[40:], 100)
	return out, at
}

// TestInterruptedRecordWalkedAsFirmware: a header whose State is 0xFF has
// no name and no data to the firmware, so its walk goes on right after
// the header. The old walk skipped NameSize+DataSize and appended the new
// KEK and db 112 bytes past where OVMF looks (OVMF then reclaimed the
// store and kept PK with no KEK and no db).
func TestInterruptedRecordWalkedAsFirmware(t *testing.T) {
	store, at := withRemnant(t, template4M(t))
	out, up, err := AddMicrosoft2023(store, updateNow)
	if err != nil {
		t.Fatal(err)
	}
	if up.Compacted {
		t.Fatal("compacted a store with room")
	}
	if got := 72 + storeHdrLen + up.BytesBefore; got != at+authHdrLen {
		t.Fatalf("records end at %d, want %d (the remnant's header alone)", got, at+authHdrLen)
	}
	if binary.LittleEndian.Uint16(out[at+authHdrLen:]) != startID {
		t.Fatalf("no record right after the remnant's header")
	}
	fw, err := ViewAsFirmware(out)
	if err != nil {
		t.Fatal(err)
	}
	if ok, why := fw.Settled(); !ok {
		t.Fatalf("the firmware would not keep it: %s", why)
	}
	for _, name := range []string{"KEK", "db"} {
		vendor := GlobalVariable
		if name == "db" {
			vendor = ImageSecurityDatabase
		}
		v, ok := fw.Value(name, vendor)
		if !ok || v.Offset < at {
			t.Fatalf("the firmware finds %s at %v, want the new record after the remnant", name, v)
		}
	}
}

// TestVariablesAfterRemnantKept: a guest that booted after the remnant
// has variables written after its header; the update keeps every one
// (the old walk landed inside them, found no record, and compacted them
// away).
func TestVariablesAfterRemnantKept(t *testing.T) {
	store, _ := withRemnant(t, template4M(t))
	var err error
	for _, n := range []string{"BootOrder2", "MTC2"} {
		if store, err = AppendVariable(store, Variable{Name: n, Vendor: GlobalVariable, Attributes: 0x7, Data: []byte("firmware wrote me")}); err != nil {
			t.Fatal(err)
		}
	}
	out, up, err := AddMicrosoft2023(store, updateNow)
	if err != nil {
		t.Fatal(err)
	}
	fw, err := ViewAsFirmware(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"BootOrder2", "MTC2"} {
		if v, ok := fw.Value(n, GlobalVariable); !ok || string(v.Data) != "firmware wrote me" {
			t.Errorf("%s lost (compacted %v)", n, up.Compacted)
		}
	}
}

// TestFirstAddedCopyWins: FindVariableEx returns the first VAR_ADDED
// copy, and a copy in deleted transition only where none is added (the
// last such copy).
func TestFirstAddedCopyWins(t *testing.T) {
	v := func(state uint8, data string) testVar {
		return testVar{Name: "X", Vendor: GlobalVariable, State: state, Data: []byte(data)}
	}
	for _, tc := range []struct {
		name string
		recs []testVar
		want string
	}{
		{"added then in transition", []testVar{v(varAdded, "A"), v(varAddedTran, "B")}, "A"},
		{"in transition then added", []testVar{v(varAddedTran, "A"), v(varAdded, "B")}, "B"},
		{"two in transition", []testVar{v(varAddedTran, "A"), v(varAddedTran, "B")}, "B"},
		{"deleted then in transition", []testVar{v(0x3C, "A"), v(varAddedTran, "B")}, "B"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := buildStore(tc.recs)
			s, err := ReadVarStore(b)
			if err != nil {
				t.Fatal(err)
			}
			fw, err := ViewAsFirmware(b)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := s.Get("X", GlobalVariable)
			fwv, fok := fw.Value("X", GlobalVariable)
			if !ok || !fok || string(got.Data) != tc.want || string(fwv.Data) != tc.want || liveCopies(s, "X", GlobalVariable) != 1 {
				t.Fatalf("reader %q (%d copies), firmware %q; want %q once", got.Data, liveCopies(s, "X", GlobalVariable), fwv.Data, tc.want)
			}
		})
	}
}

// TestUnsettledStoresRefused: a store the firmware would change by itself
// at the next boot is refused, untouched, saying whether a boot settles
// it.
func TestUnsettledStoresRefused(t *testing.T) {
	tmpl := template4M(t)
	fw, err := ViewAsFirmware(tmpl)
	if err != nil {
		t.Fatal(err)
	}
	dirty := bytes.Clone(tmpl)
	dirty[fw.LastVariable+300] = 0x00 // flash written past the records: reclaimed at boot
	odd := bytes.Clone(tmpl)
	odd[fw.Values[0].Offset+2] = 0x12
	ftw := bytes.Clone(tmpl)
	if string(ftw[0x41000:0x41004]) != "\x2b\x29\x58\x9e" {
		t.Fatal("the 4 MiB template has no FTW working block at 0x41000")
	}
	ftw[0x41000+32] = 0xFE // a write header allocated, not complete
	badName := buildStore([]testVar{{Vendor: GlobalVariable, State: varAdded, Data: []byte("x"), rawName: []byte("K\x00E\x00")}})
	for _, tc := range []struct {
		name  string
		store []byte
		boot  bool
		says  string
	}{
		{"dirty tail", dirty, true, "reclaims the store at the next boot"},
		{"name without its NUL", badName, false, "not one NUL-terminated UTF-16 string"},
		{"odd state", odd, false, "state 0x12"},
		{"pending write", ftw, true, "unfinished write"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := AddMicrosoft2023(tc.store, updateNow)
			var u *UnsettledStoreError
			if !errors.As(err, &u) || u.Boot != tc.boot || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("err %v; want an UnsettledStoreError (boot %v) saying %q", err, tc.boot, tc.says)
			}
			if tc.boot != strings.Contains(err.Error(), "one boot of the guest") {
				t.Errorf("%v: says a boot repairs it %v, want %v", err, !tc.boot, tc.boot)
			}
		})
	}
}

// TestCheckAsFirmwareCatchesMisplacedRecords: the new records written
// where the old walk put them (past the remnant's NameSize+DataSize) fail
// the firmware's walk, though the reader that wrote them would read them.
func TestCheckAsFirmwareCatchesMisplacedRecords(t *testing.T) {
	store, at := withRemnant(t, template4M(t))
	out, up, err := AddMicrosoft2023(store, updateNow)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckAsFirmware(store, out, up.Added); err != nil {
		t.Fatalf("the right output fails: %v", err)
	}
	bad := bytes.Clone(out)
	start, n := at+authHdrLen, up.BytesAfter-up.BytesBefore
	shift := 112 // NameSize 10 + DataSize 100, aligned
	copy(bad[start+shift:], out[start:start+n])
	for i := start; i < start+shift; i++ {
		bad[i] = 0xFF
	}
	if err := CheckAsFirmware(store, bad, up.Added); err == nil {
		t.Fatal("records past the firmware's end pass its walk")
	}
	for _, tamper := range []func([]byte){
		func(b []byte) { b[out2Offset(t, out, "dbx")+2] = 0x3C },        // a variable dropped
		func(b []byte) { b[out2Offset(t, out, "PK")+60+8+10] ^= 1 },     // PK's value changed
		func(b []byte) { b[len(b)-1] ^= 1 },                             // a byte outside the store
		func(b []byte) { b[out2Offset(t, out, "db")+60+6+100] ^= 0x40 }, // db's entries changed
	} {
		b := bytes.Clone(out)
		tamper(b)
		if err := CheckAsFirmware(store, b, up.Added); err == nil {
			t.Error("a tampered store passes")
		}
	}
}

// out2Offset is the firmware's record of name in b.
func out2Offset(t *testing.T, b []byte, name string) int {
	fw, err := ViewAsFirmware(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range fw.Values {
		if v.Name == name {
			return v.Offset
		}
	}
	t.Fatalf("no %s", name)
	return 0
}

// TestWindowsOnlyStoreGetsNoThirdPartyCA: a db that trusts Windows
// Production PCA 2011 and not the third-party Microsoft UEFI CA 2011 (a
// Secured-core style store) gets the 2023 KEK and Windows UEFI CA 2023
// only, as Microsoft's servicing does; the two third-party CAs are left
// out, with why.
func TestWindowsOnlyStoreGetsNoThirdPartyCA(t *testing.T) {
	var db []byte
	for _, e := range forkyLists(t, "db") {
		if d, err := ParseSignatureLists(e.list); err == nil && d.Has(windowsPCA2011) {
			db = append(db, e.list...)
		}
	}
	if len(db) == 0 {
		t.Fatal("no Windows Production PCA 2011 list in forky's db")
	}
	_, up, err := AddMicrosoft2023(storeWith(t, debianPK(t), only2011(t, "KEK"), db), updateNow)
	if err != nil {
		t.Fatal(err)
	}
	var added, left []string
	for _, a := range up.Added {
		added = append(added, a.Subject)
	}
	for _, s := range up.Skipped {
		left = append(left, s.Subject+": "+s.Reason)
	}
	if strings.Join(added, ", ") != "Microsoft Corporation KEK 2K CA 2023, Windows UEFI CA 2023" || len(left) != 2 ||
		!strings.Contains(left[0], "Microsoft UEFI CA 2023: db does not trust the third-party") {
		t.Fatalf("added %q, left out %q", added, left)
	}
}
