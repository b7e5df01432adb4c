package uefi

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"
)

var updateNow = time.Date(2026, 12, 6, 11, 40, 5, 123456789, time.FixedZone("CET", 3600))

// lists is forky's KEK or db lists of one generation: the 2011 ones (and
// Debian's key) when want2023 is nil, else the 2023 ones it picks.
func lists(t testing.TB, name string, want2023 func(*MS2023Cert) bool) []byte {
	var out []byte
	for _, e := range forkyLists(t, name) {
		var c *MS2023Cert
		for _, m := range Microsoft2023() {
			if bytes.Equal(m.DER, e.der) {
				c = &m
			}
		}
		if (c == nil && want2023 == nil) || (c != nil && want2023 != nil && want2023(c)) {
			out = append(out, e.list...)
		}
	}
	return out
}

func only2011(t testing.TB, name string) []byte { return lists(t, name, nil) }

func debianPK(t testing.TB) []byte { return forkyLists(t, "KEK")[0].list }

// storeWith builds an OVMF-like store: PK (the Debian key forky's KEK
// starts with), KEK, db, dbx and variables around them; a nil value
// leaves the variable out.
func storeWith(t testing.TB, pk, kek, db []byte, extra ...Variable) []byte {
	ts := [16]byte{0xe9, 0x07, 3, 10, 2, 53, 39} // 2025-03-10 02:53:39, as bookworm's template
	vs := []Variable{
		{Name: "certdb", Vendor: MustGUID("d9bee56e-75dc-49d9-b4d7-b534210f637a"), Attributes: 0x27, Data: []byte{4, 0, 0, 0}},
		{Name: "Boot0000", Vendor: GlobalVariable, Attributes: 0x7, Data: []byte("boot entry\x00")},
		{Name: "db", Vendor: ImageSecurityDatabase, Attributes: sbAttributes, TimeStamp: ts, Data: db},
		{Name: "dbx", Vendor: ImageSecurityDatabase, Attributes: sbAttributes, TimeStamp: ts, Data: sigList(CertSHA256GUID, MicrosoftOwner, bytes.Repeat([]byte{0x80}, 32))},
		{Name: "KEK", Vendor: GlobalVariable, Attributes: sbAttributes, TimeStamp: ts, Data: kek},
		{Name: "PK", Vendor: GlobalVariable, Attributes: sbAttributes, TimeStamp: ts, Data: pk},
		{Name: "Lang", Vendor: GlobalVariable, Attributes: 0x7, Data: []byte("eng\x00")},
	}
	var out []Variable
	for _, v := range vs {
		if v.Data != nil {
			out = append(out, v)
		}
	}
	return BuildVarStore(append(out, extra...))
}

func TestAddMicrosoft2023(t *testing.T) {
	pk, kek11, db11 := debianPK(t), only2011(t, "KEK"), only2011(t, "db")
	kekAll, dbAll := lists(t, "KEK", func(*MS2023Cert) bool { return true }), lists(t, "db", func(*MS2023Cert) bool { return true })
	winOnly := lists(t, "db", func(c *MS2023Cert) bool { return c.Subject == "Windows UEFI CA 2023" })
	forky := storeWith(t, pk, append(append([]byte{}, kek11...), kekAll...), append(append([]byte{}, db11...), dbAll...))
	all := []string{"KEK Microsoft Corporation KEK 2K CA 2023", "db Windows UEFI CA 2023", "db Microsoft UEFI CA 2023", "db Microsoft Option ROM UEFI CA 2023"}
	// filler: a record taking all the store but 1000 bytes after the 2011
	// set, deleted or live: compaction makes room only in the first case
	base := storeWith(t, pk, kek11, db11)
	end := recordsEnd(t, base)
	filler := func(state byte, room int) Variable {
		return Variable{Name: "Filler", Vendor: ownerA, Attributes: 0x7, State: state, Data: make([]byte, 64<<10-storeHdrLen-end-authHdrLen-14-room)}
	}
	for _, tc := range []struct {
		name      string
		store     []byte
		added     []string
		compacted bool
		err       error
		errText   string
	}{
		{"2011 set gains all four", base, all, false, nil, ""},
		{"partial: KEK 2023 and Windows CA there", storeWith(t, pk, append(append([]byte{}, kek11...), kekAll...), append(append([]byte{}, db11...), winOnly...)),
			[]string{"db Microsoft UEFI CA 2023", "db Microsoft Option ROM UEFI CA 2023"}, false, nil, ""},
		{"2023 set: nothing to do", forky, nil, false, nil, ""},
		{"no KEK yet: created", storeWith(t, pk, nil, db11), all, false, nil, ""},
		{"full after the records, deleted space to reclaim", storeWith(t, pk, kek11, db11, filler(0x3C, 1000)), all, true, nil, ""},
		{"full", storeWith(t, pk, kek11, db11, filler(varAdded, 1000)), nil, false, &NoRoomError{}, "no room"},
		{"no PK: setup mode", storeWith(t, nil, kek11, db11), nil, false, ErrSetupMode, "setup mode"},
		{"plain store", plainStore(storeWith(t, pk, kek11, db11)), nil, false, ErrNotAuthenticatedStore, "not an authenticated"},
		{"not a variable file", []byte("MZ not firmware"), nil, false, ErrNotAuthenticatedStore, "not an OVMF variable file"},
		{"two live KEKs", storeWith(t, pk, kek11, db11, Variable{Name: "KEK", Vendor: GlobalVariable, Attributes: sbAttributes, Data: kek11}), nil, false, nil, "2 live records"},
		{"unhealthy store header", patch(storeWith(t, pk, kek11, db11), 72+21, []byte{0xFF}), nil, false, nil, "not a formatted healthy store"},
		{"db past the firmware's limit", storeWith(t, pk, kek11, append(append([]byte{}, db11...), sigList(CertSHA256GUID, ownerA, make([]byte, 32*180))...)), nil, false, &VariableTooLargeError{}, "allows one authenticated variable"},
		{"bad signature list in db", storeWith(t, pk, kek11, db11[:40]), nil, false, nil, "reading the Secure Boot variables"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := bytes.Clone(tc.store)
			out, up, err := AddMicrosoft2023(tc.store, updateNow)
			if !bytes.Equal(in, tc.store) {
				t.Fatal("the input was changed")
			}
			if tc.errText != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errText) || out != nil {
					t.Fatalf("error %v (output %d bytes), want %q and no output", err, len(out), tc.errText)
				}
				checkErrorType(t, err, tc.err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range up.Added {
				got = append(got, a.Variable+" "+a.Subject)
			}
			if strings.Join(got, "|") != strings.Join(tc.added, "|") || up.Compacted != tc.compacted {
				t.Fatalf("added %q (compacted %v), want %q (%v)", got, up.Compacted, tc.added, tc.compacted)
			}
			if len(tc.added) == 0 && (!bytes.Equal(out, in) || up.BytesAfter != up.BytesBefore) {
				t.Fatal("nothing to add, yet the file changed")
			}
			checkUpdate(t, in, out, up)
		})
	}
}

// checkUpdate holds an update to what it must keep, independently of
// AddMicrosoft2023's own check: the same length, every variable but KEK
// and db byte-identical, every entry of KEK and db kept, the certificates
// added there, and a rerun changing nothing.
func checkUpdate(t *testing.T, in, out []byte, up SecureBootUpdate) {
	t.Helper()
	if len(out) != len(in) || !sameBytesOutsideStore(in, out) {
		t.Fatalf("%d bytes out, %d in; the same outside the store's records: %v", len(out), len(in), sameBytesOutsideStore(in, out))
	}
	before, _ := ReadVarStore(in)
	after, err := ReadVarStore(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range before.Variables {
		w, ok := after.Get(v.Name, v.Vendor)
		if !ok {
			t.Fatalf("%s lost", v.Name)
		}
		if v.Name == "KEK" || v.Name == "db" {
			if !bytes.HasPrefix(w.Data, v.Data) || w.Attributes != v.Attributes {
				t.Errorf("%s: old lists not kept first", v.Name)
			}
			if len(up.Added) > 0 && len(w.Data) > len(v.Data) && string(w.TimeStamp[:7]) != string([]byte{0xea, 0x07, 12, 6, 10, 40, 5}) {
				t.Errorf("%s: timestamp % x, want 2026-12-06 10:40:05 UTC", v.Name, w.TimeStamp)
			}
			continue
		}
		if !sameVariable(v, *w) {
			t.Errorf("%s changed", v.Name)
		}
	}
	sb, err := after.SecureBoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Microsoft2023() {
		d := sb.KEK
		if c.Variable == "db" {
			d = sb.DB
		}
		n := 0
		for _, e := range d.Certificates {
			if e.SHA256.String() == c.SHA256 {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s: %d copies of %s", c.Variable, n, c.Subject)
		}
	}
	again, up2, err := AddMicrosoft2023(out, updateNow.Add(time.Hour))
	if err != nil || len(up2.Added) != 0 || !bytes.Equal(again, out) {
		t.Errorf("rerun: %v, added %v, same bytes %v", err, up2.Added, bytes.Equal(again, out))
	}
	if free := up.StoreSize - up.BytesAfter; free < 0 || up.BytesAfter != recordsEnd(t, out) {
		t.Errorf("figures %+v: records end at %d", up, recordsEnd(t, out))
	}
}

func checkErrorType(t *testing.T, err, want error) {
	t.Helper()
	switch want.(type) {
	case *NoRoomError:
		var p *NoRoomError
		if !errors.As(err, &p) || p.Need <= p.Free {
			t.Errorf("%v: not a NoRoomError with Need > Free (%+v)", err, p)
		}
	case *VariableTooLargeError:
		var e *VariableTooLargeError
		if !errors.As(err, &e) || e.Variable != "db" || e.Size <= e.Limit || e.Limit != 0x2800-60-6 {
			t.Errorf("%v: not db's VariableTooLargeError at 0x2800 (%+v)", err, e)
		}
	case nil:
		if errors.Is(err, ErrSetupMode) || errors.Is(err, ErrNotAuthenticatedStore) {
			t.Errorf("%v: a typed refusal where a plain error was due", err)
		}
	default:
		if !errors.Is(err, want) {
			t.Errorf("%v: not %v", err, want)
		}
	}
	var u *UnreadableStoreError
	if errors.As(err, &u) != strings.Contains(err.Error(), "not an OVMF variable file") {
		t.Errorf("%v: UnreadableStoreError %v", err, u)
	}
}

// recordsEnd: the bytes a store's records take, as an independent walk
// over the headers finds them.
func recordsEnd(t testing.TB, b []byte) int {
	le := binary.LittleEndian
	st := b[72:]
	size := int(le.Uint32(st[16:]))
	off := storeHdrLen
	for off+authHdrLen <= size && le.Uint16(st[off:]) == startID {
		off = (off + authHdrLen + int(le.Uint32(st[off+36:])) + int(le.Uint32(st[off+40:])) + 3) &^ 3
	}
	return min(off, size) - storeHdrLen
}

func plainStore(b []byte) []byte {
	copy(b[72:88], VariableGUID[:])
	return b
}
