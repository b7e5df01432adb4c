package secureboot

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/uefi"
)

// TestVerifyCatches: verify, the independent reader update trusts after
// writing, passes the real update and refuses every way a store could be
// wrong: an entry lost, one too many, another owner, PK, dbx or another
// variable changed, attributes, size.
func TestVerifyCatches(t *testing.T) {
	before := store2011(t)
	good := store2023(t)
	if err := verify(before, good); err != nil {
		t.Fatalf("the update itself: %v", err)
	}
	ms := map[string][]byte{}
	for _, c := range uefi.Microsoft2023() {
		ms[c.Subject] = c.DER
	}
	x509 := func(owner uefi.GUID, names ...string) [][]byte {
		var out [][]byte
		for _, n := range names {
			der, ok := ms[n]
			if !ok {
				der = cert(t, n)
			}
			out = append(out, uefi.SignatureList(uefi.CertX509GUID, owner, der))
		}
		return out
	}
	kek2011, kek2023 := "Microsoft Corporation KEK CA 2011", "Microsoft Corporation KEK 2K CA 2023"
	db := []string{"Microsoft Windows Production PCA 2011", "Microsoft Corporation UEFI CA 2011", "Windows UEFI CA 2023", "Microsoft UEFI CA 2023", "Microsoft Option ROM UEFI CA 2023"}
	// built whole: the vars of a correct result, one thing broken
	build := func(edit func(vs []uefi.Variable) []uefi.Variable) []byte {
		vs := vars2011(t)
		vs[1] = sbVar("KEK", uefi.GlobalVariable, x509(msOwner, kek2011, kek2023)...)
		vs[2] = sbVar("db", uefi.ImageSecurityDatabase, x509(msOwner, db...)...)
		return uefi.BuildVarStore(edit(vs))
	}
	if err := verify(before, build(func(vs []uefi.Variable) []uefi.Variable { return vs })); err != nil {
		t.Fatalf("a correct store built whole: %v", err)
	}
	for _, c := range []struct {
		name  string
		after []byte
		says  string
	}{
		{"2011 KEK lost", build(func(vs []uefi.Variable) []uefi.Variable {
			vs[1] = sbVar("KEK", uefi.GlobalVariable, x509(msOwner, kek2023)...)
			return vs
		}), "KEK: holds 1 certificate(s)"},
		{"a site key slipped in", build(func(vs []uefi.Variable) []uefi.Variable {
			vs[1] = sbVar("KEK", uefi.GlobalVariable, x509(msOwner, kek2011, kek2023, "Site KEK")...)
			return vs
		}), "KEK: holds 3 certificate(s)"},
		{"2023 CA under another owner", build(func(vs []uefi.Variable) []uefi.Variable {
			vs[2] = sbVar("db", uefi.ImageSecurityDatabase, append(x509(msOwner, db[:4]...), x509(pkOwner, db[4])...)...)
			return vs
		}), "db: holds"},
		{"Option ROM CA missing", build(func(vs []uefi.Variable) []uefi.Variable {
			vs[2] = sbVar("db", uefi.ImageSecurityDatabase, x509(msOwner, db[:4]...)...)
			return vs
		}), "db: holds 4 certificate(s)"},
		{"PK changed", build(func(vs []uefi.Variable) []uefi.Variable {
			vs[0] = sbVar("PK", uefi.GlobalVariable, x509(pkOwner, "Site KEK")...)
			return vs
		}), "/PK changed"},
		{"dbx emptied", build(func(vs []uefi.Variable) []uefi.Variable { vs[3].Data = vs[3].Data[:0]; return vs }), "/dbx changed"},
		{"boot entry gone", build(func(vs []uefi.Variable) []uefi.Variable { return vs[:4] }), "/Boot0000 is gone"},
		{"a variable appeared", build(func(vs []uefi.Variable) []uefi.Variable {
			return append(vs, uefi.Variable{Name: "Boot0001", Vendor: uefi.GlobalVariable, Attributes: 7, Data: []byte{1}})
		}), "/Boot0001 appeared"},
		{"KEK not authenticated", build(func(vs []uefi.Variable) []uefi.Variable { vs[1].Attributes = 0x7; return vs }), "KEK: attributes 0x7"},
		{"size", append(bytes.Clone(good), 0xFF), "the file is 65609 bytes, was 65608"},
		{"not a store", bytes.Repeat([]byte{0}, len(before)), "the new file"},
	} {
		if err := verify(before, c.after); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.says)
		}
	}
}

// FuzzInspect: any bytes as a guest's variable file: status reads and
// judges them without a panic, and update's plan never calls a file it
// cannot read writable.
func FuzzInspect(f *testing.F) {
	f.Add(store2011(f))
	f.Add(store2023(f))
	f.Add(storeSetupMode(f))
	f.Add(storePlain(f))
	f.Add([]byte("_FVH"))
	f.Fuzz(func(t *testing.T, b []byte) {
		g := Guest{NVRAM: "/x"}
		inspect(context.Background(), &g, b, nil, now)
		decide(&g, "")
		if g.Remedy == "" || g.Certs == "" {
			t.Fatalf("undecided: %+v", g)
		}
		if g.Remedy == hostcheck.CertRemedyUpdateNVRAM && len(g.WouldAdd) == 0 {
			t.Fatalf("update with nothing to add: %+v", g)
		}
	})
}

// FuzzVerify: any pair of files: verify answers, never panics, and
// passes a file against itself only when it is an authenticated store
// that lacks nothing (else the 2023 certificates would be due).
func FuzzVerify(f *testing.F) {
	f.Add(store2011(f), store2023(f))
	f.Add(store2023(f), store2023(f))
	f.Add(storePlain(f), storePlain(f))
	f.Fuzz(func(t *testing.T, before, after []byte) {
		if verify(before, after) == nil && bytes.Equal(before, after) {
			if _, up, err := uefi.AddMicrosoft2023(after, now); err == nil && len(up.Added) > 0 {
				t.Fatalf("a store lacking %d certificate(s) verified against itself", len(up.Added))
			}
		}
	})
}
