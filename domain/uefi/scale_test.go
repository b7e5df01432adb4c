package uefi

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// transitionStore is the worst case of the in-transition bookkeeping: n
// variables written in deleted transition, then their n replacements, in
// a store just large enough (80 bytes a record): 7.2 MB for n = 45,000,
// which took the quadratic walk two minutes.
func transitionStore(n int) []byte {
	vars := make([]Variable, 0, 2*n)
	for _, state := range []uint8{varAddedTran, varAdded} {
		for i := range n {
			vars = append(vars, Variable{Name: fmt.Sprintf("V%05d", i), Vendor: ownerA, State: state, Attributes: 0x7, Data: []byte{1, 2, 3, 4}})
		}
	}
	return buildVarStore(vars, storeHdrLen+80*len(vars)+4096)
}

const big7MBVars = 45_000

// TestReadVarStoreLinear: the walk's work is a constant per record (a
// count, the walk, and where a record is in transition three passes to
// settle which copy the firmware reads: five steps), on
// the 7.2 MB store the quadratic one took two minutes over (each
// replacement cut its old copy out of the slice and renumbered every
// pending record).
func TestReadVarStoreLinear(t *testing.T) {
	store := transitionStore(big7MBVars)
	var w recordWalk
	s, err := w.read(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Variables) != big7MBVars || s.Variables[0].Name != "V00000" || s.Variables[big7MBVars-1].Name != "V44999" || s.Variables[0].State != varAdded {
		t.Fatalf("%d variables, want the %d replacements in order", len(s.Variables), big7MBVars)
	}
	if records := 2 * big7MBVars; w.steps > 5*records+1 {
		t.Fatalf("%d steps for %d records: not linear", w.steps, records)
	}
}

// cancelAfter is a context whose Err says cancelled from its (calls+1)th
// call on: a cancellation arriving in the middle of a walk.
type cancelAfter struct {
	context.Context
	calls int
}

func (c *cancelAfter) Err() error {
	if c.calls--; c.calls < 0 {
		return context.Canceled
	}
	return nil
}

// TestReadVarStoreCancelled: a cancelled context stops the walk before
// its first record, and a cancellation during it within checkEvery
// records; ReadFileContext and ReadVarStoreContext return ctx's error.
func TestReadVarStoreCancelled(t *testing.T) {
	store := transitionStore(big7MBVars)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var w recordWalk
	if s, err := w.read(ctx, store); !errors.Is(err, context.Canceled) || s != nil || w.steps != 0 {
		t.Fatalf("cancelled walk: %v, %d steps; want context.Canceled before any record", err, w.steps)
	}
	w = recordWalk{}
	// a cancellation during the count of the records, then during the
	// walk (90,000 records: 88 checks in each)
	for _, calls := range []int{1, 3, 87, 88, 89, 120, 170} {
		w = recordWalk{}
		if _, err := w.read(&cancelAfter{Context: context.Background(), calls: calls}, store); !errors.Is(err, context.Canceled) || w.steps > calls*checkEvery {
			t.Fatalf("walk cancelled after %d checks: %v after %d steps, want context.Canceled within %d", calls, err, w.steps, calls*checkEvery)
		}
	}
	if _, err := ReadVarStoreContext(ctx, store); !errors.Is(err, context.Canceled) {
		t.Fatalf("ReadVarStoreContext: %v", err)
	}
	p := filepath.Join(t.TempDir(), "VARS.fd")
	if err := os.WriteFile(p, store, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFileContext(ctx, p); !errors.Is(err, context.Canceled) {
		t.Fatalf("ReadFileContext: %v", err)
	}
}

// TestSignatureListsCancelled: the same of the signature lists, alone
// and through SecureBootContext.
func TestSignatureListsCancelled(t *testing.T) {
	list := certList(t, 3000)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ParseSignatureListsContext(ctx, list); !errors.Is(err, context.Canceled) {
		t.Fatalf("ParseSignatureListsContext: %v", err)
	}
	c := &cancelAfter{Context: context.Background(), calls: 1}
	if _, err := ParseSignatureListsContext(c, list); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled after 1 check: %v", err)
	}
	s, err := ReadVarStore(buildVarStore([]Variable{{Name: "db", Vendor: ImageSecurityDatabase, Data: list}}, 2<<20))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SecureBootContext(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("SecureBootContext: %v", err)
	}
}

// certList is one EFI_SIGNATURE_LIST of n distinct X.509 certificates
// (their serial numbers differ). Microsoft's CAs are RSA, ~1.5 KB; this
// ECDSA one is ~430 bytes: the smaller, the more memory per input byte.
func certList(tb testing.TB, n int) []byte {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	serial := new(big.Int).Lsh(big.NewInt(1), 120) // 16 bytes of DER, patched below
	tmpl := &x509.Certificate{SerialNumber: serial,
		Subject:   pkix.Name{CommonName: "Windows UEFI CA 2023", Organization: []string{"Microsoft Corporation"}, Country: []string{"US"}},
		NotBefore: time.Date(2023, 6, 13, 0, 0, 0, 0, time.UTC), NotAfter: exp}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		tb.Fatal(err)
	}
	at := serialAt(tb, der)
	entries := make([][]byte, n)
	for i := range entries {
		e := append([]byte{}, der...)
		binary.BigEndian.PutUint32(e[at+12:], uint32(i))
		entries[i] = e
	}
	return SignatureList(CertX509GUID, MicrosoftOwner, entries...)
}

// serialAt finds the 16-byte serial number's content in der.
func serialAt(tb testing.TB, der []byte) int {
	for i := 0; i+18 < len(der); i++ {
		if der[i] == 0x02 && der[i+1] == 16 && der[i+2] == 0x01 {
			return i + 2
		}
	}
	tb.Fatal("no 16-byte serial number in the test certificate")
	return 0
}

// allocated is the bytes f allocates (the test runs alone: nothing else
// allocates meanwhile).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestParseSignatureListsMemory: a large db of real certificates costs
// less than three times its size (x509.ParseCertificate for each was
// eleven times, 26 times in RSS).
func TestParseSignatureListsMemory(t *testing.T) {
	list := certList(t, 4000) // 1.7 MB
	var db *SignatureDB
	var err error
	n := allocated(func() { db, err = ParseSignatureLists(list) })
	if err != nil {
		t.Fatal(err)
	}
	if len(db.Certificates) != 4000 || db.Certificates[3999].Subject != "Windows UEFI CA 2023" || db.Certificates[0].ParseError != "" {
		t.Fatalf("%d certificates, the last %+v", len(db.Certificates), db.Certificates[len(db.Certificates)-1])
	}
	t.Logf("%d bytes of signature list, %d allocated (%.2f per byte)", len(list), n, float64(n)/float64(len(list)))
	if n > 3*uint64(len(list)) {
		t.Fatalf("%d bytes allocated for a %d-byte list: more than 3 per byte", n, len(list))
	}
}

// TestParseSignatureListsMemoryWorst: the worst input per byte is X.509
// entries just long enough to be read (minCertDER bytes of junk after the
// owner): one Certificate each, under 2 bytes per byte; entries shorter
// than that (an owner and nothing else) are counted, not read, and cost
// nothing each (they were 144 bytes for 16, 9 per byte).
func TestParseSignatureListsMemoryWorst(t *testing.T) {
	junk := make([][]byte, 100_000)
	for i := range junk {
		junk[i] = make([]byte, minCertDER)
	}
	for _, tc := range []struct {
		name    string
		list    []byte
		perByte float64
		check   func(*SignatureDB) bool
	}{
		{"entries of an owner alone", SignatureList(CertX509GUID, ownerA, make([][]byte, 100_000)...), 0.01,
			func(db *SignatureDB) bool { return len(db.Certificates) == 0 && db.TooShort == 100_000 }},
		{"entries just long enough to read", SignatureList(CertX509GUID, ownerA, junk...), 2,
			func(db *SignatureDB) bool {
				return len(db.Certificates) == 100_000 && db.Certificates[0].ParseError != ""
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var db *SignatureDB
			n := allocated(func() { db, _ = ParseSignatureLists(tc.list) })
			if db == nil || !tc.check(db) || db.Entries() != 100_000 {
				t.Fatalf("read as %+v", db)
			}
			t.Logf("%d bytes, %d allocated (%.2f per byte)", len(tc.list), n, float64(n)/float64(len(tc.list)))
			if float64(n) > tc.perByte*float64(len(tc.list)) {
				t.Fatalf("%d bytes allocated for a %d-byte list: more than %.2f per byte", n, len(tc.list), tc.perByte)
			}
		})
	}
}

// TestReaderMemory: reading a 16 MB store and its Secure Boot variables
// allocates at most 4 times the file, whatever fills it: a million
// 16-byte db entries (214 MB before: 13 times), or the smallest records
// the store can hold.
func TestReaderMemory(t *testing.T) {
	const size = 16 << 20
	million := SignatureList(CertX509GUID, ownerA, make([][]byte, (size-4096)/16-2)...)
	var small []Variable
	for i := 0; len(small)*64 < size-8192; i++ {
		small = append(small, Variable{Name: "A", Vendor: ownerA, State: varAdded, Attributes: 0x7})
	}
	for _, tc := range []struct {
		name  string
		store []byte
	}{
		{"a million db entries", buildVarStore([]Variable{{Name: "db", Vendor: ImageSecurityDatabase, State: varAdded, Attributes: sbAttributes, Data: million}}, size)},
		{"smallest records", buildVarStore(small, size)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := allocated(func() {
				s, err := ReadVarStore(tc.store)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := s.SecureBoot(); err != nil {
					t.Fatal(err)
				}
			})
			t.Logf("%d-byte store: %d allocated (%.2f per byte)", len(tc.store), n, float64(n)/float64(len(tc.store)))
			if n > 4*uint64(len(tc.store)) {
				t.Fatalf("%d bytes allocated reading a %d-byte store: more than 4 per byte", n, len(tc.store))
			}
		})
	}
}

func BenchmarkReadVarStore(b *testing.B) {
	for _, n := range []int{1000, 4000, 16000, big7MBVars} {
		store := transitionStore(n)
		b.Run(fmt.Sprintf("transitions=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(store)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ReadVarStore(store); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkParseSignatureLists(b *testing.B) {
	list := certList(b, 4000)
	b.SetBytes(int64(len(list)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseSignatureLists(list); err != nil {
			b.Fatal(err)
		}
	}
}
