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
	"unicode/utf16"
)

// testVar is one record the builder writes; rawName overrides the UTF-16
// encoding of Name (to write an odd-length name).
type testVar struct {
	Name    string
	Vendor  GUID
	State   uint8
	Data    []byte
	rawName []byte
}

// buildStore writes a firmware volume holding an authenticated variable
// store with vars, laid out as OVMF lays it out (volume header with a
// one-entry block map, store header, 4-byte aligned records, erased tail).
func buildStore(vars []testVar) []byte {
	le := binary.LittleEndian
	const hdrLen, storeSize = 72, 64 << 10
	b := make([]byte, hdrLen+storeSize)
	copy(b[16:32], MustGUID("fff12b8d-7696-4c8b-a985-2747075b4f50").bytes()) // gEfiSystemNvDataFvGuid
	le.PutUint64(b[32:], uint64(len(b)))
	copy(b[40:], "_FVH")
	le.PutUint16(b[48:], hdrLen)
	le.PutUint32(b[56:], uint32(len(b)/4096)) // block map: n blocks of 4 KiB, then {0,0}
	le.PutUint32(b[60:], 4096)
	st := b[hdrLen:]
	copy(st[0:16], AuthVariableGUID.bytes())
	le.PutUint32(st[16:], storeSize)
	st[20], st[21] = 0x5A, 0xFE
	for i := storeHdrLen; i < len(st); i++ {
		st[i] = 0xFF
	}
	off := storeHdrLen
	for _, v := range vars {
		name := v.rawName
		if name == nil {
			for _, c := range utf16.Encode([]rune(v.Name + "\x00")) {
				name = le.AppendUint16(name, c)
			}
		}
		r := st[off:]
		le.PutUint16(r[0:], startID)
		r[2], r[3] = v.State, 0
		le.PutUint32(r[4:], 0x27) // NV|BS|RT|time-based authenticated write
		le.PutUint64(r[8:], 0)
		for i := 16; i < 36; i++ {
			r[i] = 0
		}
		le.PutUint32(r[36:], uint32(len(name)))
		le.PutUint32(r[40:], uint32(len(v.Data)))
		copy(r[44:60], v.Vendor.bytes())
		copy(r[60:], name)
		copy(r[60+len(name):], v.Data)
		off = (off + authHdrLen + len(name) + len(v.Data) + 3) &^ 3
	}
	return b
}

func (g GUID) bytes() []byte { return g[:] }

// sigList writes one EFI_SIGNATURE_LIST of entries of one type and size.
func sigList(typ, owner GUID, entries ...[]byte) []byte {
	le := binary.LittleEndian
	size := 16 + len(entries[0])
	b := append([]byte{}, typ[:]...)
	b = le.AppendUint32(b, uint32(sigListHdrLen+size*len(entries)))
	b = le.AppendUint32(b, 0)
	b = le.AppendUint32(b, uint32(size))
	for _, e := range entries {
		b = append(b, owner[:]...)
		b = append(b, e...)
	}
	return b
}

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
