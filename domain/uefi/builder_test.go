package uefi

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"math/big"
	"testing"
	"time"
)

// testVar is one record the tests write; rawName (an odd-length name)
// is patched in after building.
type testVar struct {
	Name    string
	Vendor  GUID
	State   uint8
	Data    []byte
	rawName []byte
}

func buildStore(vars []testVar) []byte {
	l := make([]Variable, len(vars))
	for i, v := range vars {
		l[i] = Variable{Name: v.Name, Vendor: v.Vendor, State: v.State, Data: v.Data, Attributes: 0x27}
		if v.rawName != nil {
			l[i].Name = ""
		}
	}
	b := BuildVarStore(l)
	// rawName: only as the first record, whose name (empty, 2 bytes) is replaced
	if len(vars) > 0 && vars[0].rawName != nil {
		r := b[72+storeHdrLen:]
		n := vars[0].rawName
		binary.LittleEndian.PutUint32(r[36:], uint32(len(n)))
		copy(r[60:], n)
		copy(r[60+len(n):], vars[0].Data)
	}
	return b
}

func sigList(typ, owner GUID, entries ...[]byte) []byte { return SignatureList(typ, owner, entries...) }

// testCert makes a DER certificate named cn, issued by itself.
func testCert(t testing.TB, cn string, notAfter time.Time) []byte {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Date(2023, 6, 13, 0, 0, 0, 0, time.UTC), NotAfter: notAfter}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	return der
}
