package uefi

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var (
	ownerA = MustGUID("a0baa8a3-041d-48a8-bc87-c36d121b5e3d")
	exp    = time.Date(2038, 6, 1, 0, 0, 0, 0, time.UTC)
)

func TestReadVarStore(t *testing.T) {
	kek := testCert(t, "Microsoft Corporation KEK 2K CA 2023", exp)
	db1, db2 := testCert(t, "Windows UEFI CA 2023", exp), testCert(t, "Microsoft UEFI CA 2023", exp)
	pk := testCert(t, "Test PK", exp)
	hash := bytes.Repeat([]byte{0xAB}, 32)
	sbVars := []testVar{
		{Name: "PK", Vendor: GlobalVariable, State: varAdded, Data: sigList(CertX509GUID, GlobalVariable, pk)},
		{Name: "KEK", Vendor: GlobalVariable, State: varAdded, Data: sigList(CertX509GUID, MicrosoftOwner, kek)},
		// db: two lists (certificates differ in size, so one list each)
		{Name: "db", Vendor: ImageSecurityDatabase, State: varAdded, Data: append(sigList(CertX509GUID, MicrosoftOwner, db1), sigList(CertX509GUID, MicrosoftOwner, db2)...)},
		{Name: "dbx", Vendor: ImageSecurityDatabase, State: varAdded, Data: sigList(CertSHA256GUID, MicrosoftOwner, hash, hash, hash)},
	}
	type want struct {
		names            []string
		pk, kek, db, dbx int // certificates; dbx: hashes
		err              string
	}
	for _, tc := range []struct {
		name   string
		store  []byte
		want   want
		sbWant string // SecureBoot() error
	}{
		{"secure boot set", buildStore(sbVars), want{names: []string{"PK", "KEK", "db", "dbx"}, pk: 1, kek: 1, db: 2, dbx: 3}, ""},
		{"deleted variable dropped", buildStore(append([]testVar{{Name: "db", Vendor: ImageSecurityDatabase, State: 0x3C, Data: sigList(CertX509GUID, ownerA, pk)}}, sbVars...)),
			want{names: []string{"PK", "KEK", "db", "dbx"}, pk: 1, kek: 1, db: 2, dbx: 3}, ""},
		{"header-only record dropped", buildStore([]testVar{{Name: "X", Vendor: ownerA, State: 0x7F, Data: []byte{1}}}), want{names: nil}, ""},
		{"in-transition copy replaced", buildStore([]testVar{
			{Name: "KEK", Vendor: GlobalVariable, State: varAddedTran, Data: sigList(CertX509GUID, ownerA, pk)},
			{Name: "Lang", Vendor: GlobalVariable, State: varAdded, Data: []byte("eng")},
			{Name: "KEK", Vendor: GlobalVariable, State: varAdded, Data: sigList(CertX509GUID, MicrosoftOwner, kek)},
		}), want{names: []string{"Lang", "KEK"}, kek: 1}, ""},
		// two pending at once, replaced in the other order: the survivors keep file order
		{"in-transition copies replaced out of order", buildStore([]testVar{
			{Name: "A", Vendor: ownerA, State: varAddedTran, Data: []byte{1}},
			{Name: "B", Vendor: ownerA, State: varAddedTran, Data: []byte{1}},
			{Name: "C", Vendor: ownerA, State: varAdded, Data: []byte{1}},
			{Name: "B", Vendor: ownerA, State: varAdded, Data: []byte{2}},
			{Name: "A", Vendor: ownerA, State: varAdded, Data: []byte{2}},
		}), want{names: []string{"C", "B", "A"}}, ""},
		// a copy in transition replaced by another in transition, then by a complete one
		{"in-transition chain", buildStore([]testVar{
			{Name: "A", Vendor: ownerA, State: varAddedTran, Data: []byte{1}},
			{Name: "A", Vendor: GlobalVariable, State: varAddedTran, Data: []byte{1}}, // another vendor: not a replacement
			{Name: "A", Vendor: ownerA, State: varAddedTran, Data: []byte{2}},
			{Name: "B", Vendor: ownerA, State: varAdded, Data: []byte{1}},
			{Name: "A", Vendor: ownerA, State: varAdded, Data: []byte{3}},
		}), want{names: []string{"A", "B", "A"}}, ""},
		{"in-transition copy alone counts", buildStore([]testVar{{Name: "KEK", Vendor: GlobalVariable, State: varAddedTran, Data: sigList(CertX509GUID, ownerA, pk)}}), want{names: []string{"KEK"}, kek: 1}, ""},
		{"odd-length name", buildStore([]testVar{{Vendor: ownerA, State: varAdded, rawName: []byte{'d', 0, 'b'}, Data: []byte{1}}}), want{err: "name size 3 is odd"}, ""},
		{"truncated record", truncated(t), want{err: "run past the store's end"}, ""},
		{"bad signature list", buildStore([]testVar{{Name: "db", Vendor: ImageSecurityDatabase, State: varAdded, Data: sigList(CertX509GUID, ownerA, pk)[:40]}}), want{names: []string{"db"}}, "db: signature list at offset 0: size"},
		{"short file", []byte("_FVH"), want{err: "too short"}, ""},
		{"no _FVH", make([]byte, 200), want{err: "no firmware volume signature"}, ""},
		{"volume longer than file", patch(buildStore(nil), 32, []byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F}), want{err: "firmware volume length"}, ""},
		{"header length past volume", patch(buildStore(nil), 48, []byte{0x10, 0x00}), want{err: "header length 16 out of range"}, ""},
		{"unknown store", patch(buildStore(nil), 72, make([]byte, 16)), want{err: "unknown signature"}, ""},
		{"store size past volume", patch(buildStore(nil), 72+16, []byte{0xFF, 0xFF, 0xFF, 0xFF}), want{err: "variable store size 4294967295"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ReadVarStore(tc.store)
			if tc.want.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want.err) {
					t.Fatalf("err = %v, want %q", err, tc.want.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, v := range s.Variables {
				names = append(names, v.Name)
			}
			if strings.Join(names, ",") != strings.Join(tc.want.names, ",") {
				t.Fatalf("variables %v, want %v", names, tc.want.names)
			}
			sb, err := s.SecureBoot()
			if tc.sbWant != "" {
				if err == nil || !strings.Contains(err.Error(), tc.sbWant) {
					t.Fatalf("SecureBoot err = %v, want %q", err, tc.sbWant)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := [4]int{count(sb.PK), count(sb.KEK), count(sb.DB), 0}
			if sb.DBX != nil {
				got[3] = sb.DBX.SHA256
			}
			if got != [4]int{tc.want.pk, tc.want.kek, tc.want.db, tc.want.dbx} {
				t.Fatalf("PK/KEK/db certs, dbx hashes = %v, want %v", got, [4]int{tc.want.pk, tc.want.kek, tc.want.db, tc.want.dbx})
			}
		})
	}
}

func TestCertificateFields(t *testing.T) {
	der := testCert(t, "Windows UEFI CA 2023", exp)
	s, err := ReadVarStore(buildStore([]testVar{{Name: "db", Vendor: ImageSecurityDatabase, State: varAdded, Data: sigList(CertX509GUID, MicrosoftOwner, der)}}))
	if err != nil {
		t.Fatal(err)
	}
	sb, err := s.SecureBoot()
	if err != nil {
		t.Fatal(err)
	}
	c := sb.DB.Certificates[0]
	if c.Subject != "Windows UEFI CA 2023" || c.Issuer != "Windows UEFI CA 2023" || !c.NotAfter.Equal(exp) ||
		c.Owner.String() != "77fa9abd-0359-4d32-bd60-28f4e78f784b" || c.ParseError != "" || !sb.DB.Has("Windows UEFI CA 2023") {
		t.Fatalf("certificate read as %+v", c)
	}
}

// truncated: a record whose data size claims more than the store holds.
func truncated(t *testing.T) []byte {
	b := buildStore([]testVar{{Name: "db", Vendor: ImageSecurityDatabase, State: varAdded, Data: []byte{1, 2, 3, 4}}})
	return patch(b, 72+storeHdrLen+40, []byte{0x00, 0x00, 0x01, 0x00}) // DataSize = 64 KiB
}

func patch(b []byte, off int, p []byte) []byte {
	copy(b[off:], p)
	return b
}

func count(d *SignatureDB) int {
	if d == nil {
		return 0
	}
	return len(d.Certificates)
}

func TestReadFileRefusesNonRegular(t *testing.T) {
	if _, err := ReadFile("/dev/zero"); err == nil || !strings.Contains(err.Error(), "/dev/zero") {
		t.Fatalf("ReadFile(/dev/zero) = %v, want an error naming it", err)
	}
	p := filepath.Join(t.TempDir(), "VARS.fd")
	if err := os.WriteFile(p, []byte("not a volume"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(p); err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("ReadFile(junk) = %v, want an error naming %s", err, p)
	}
}

func FuzzReadVarStore(f *testing.F) {
	pk := testCert(f, "PK", exp)
	f.Add(buildStore([]testVar{
		{Name: "PK", Vendor: GlobalVariable, State: varAdded, Data: sigList(CertX509GUID, GlobalVariable, pk)},
		{Name: "dbx", Vendor: ImageSecurityDatabase, State: varAdded, Data: sigList(CertSHA256GUID, ownerA, make([]byte, 32))},
		{Name: "KEK", Vendor: GlobalVariable, State: varAddedTran, Data: sigList(CertX509GUID, ownerA, pk)},
	})[:4096])
	f.Add(buildStore(nil)[:200])
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ReadVarStore(b)
		if err != nil {
			return
		}
		for _, v := range s.Variables {
			if len(v.Data) > len(b) {
				t.Fatalf("variable %q holds %d bytes of a %d-byte file", v.Name, len(v.Data), len(b))
			}
		}
		_, _ = s.SecureBoot()
	})
}
