package uefi

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"math/big"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

// viaX509 is what a certificate entry showed when crypto/x509 read it
// whole: the reference the DER walk must agree with.
func viaX509(der []byte) (Certificate, error) {
	x, err := x509.ParseCertificate(der)
	if err != nil {
		return Certificate{}, err
	}
	c := Certificate{Subject: x.Subject.CommonName, Issuer: x.Issuer.CommonName, NotBefore: x.NotBefore.UTC(), NotAfter: x.NotAfter.UTC()}
	if c.Subject == "" {
		c.Subject = x.Subject.String()
	}
	if c.Issuer == "" {
		c.Issuer = x.Issuer.String()
	}
	return c, nil
}

// sameAsX509 fails t when x509 reads der and the walk shows it otherwise.
func sameAsX509(t *testing.T, der []byte) {
	t.Helper()
	want, err := viaX509(der)
	if err != nil {
		return // x509 refuses it: the walk may read it or not
	}
	got := certificate(der, ownerA)
	if got.ParseError != "" || got.Subject != want.Subject || got.Issuer != want.Issuer ||
		!got.NotBefore.Equal(want.NotBefore) || !got.NotAfter.Equal(want.NotAfter) || got.NotAfter.Location() != time.UTC {
		t.Fatalf("read as %q / %q / %s–%s (%s), x509: %q / %q / %s–%s",
			got.Subject, got.Issuer, got.NotBefore, got.NotAfter, got.ParseError, want.Subject, want.Issuer, want.NotBefore, want.NotAfter)
	}
}

// certVariants: certificates whose names and times take each path of the
// walk: string types, no or empty CN (the DN instead), two CNs, a
// multi-valued RDN, GeneralizedTime after 2049, UTCTime before 2000,
// another issuer.
func certVariants(tb testing.TB) map[string][]byte {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	ca := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "Issuing CA", Organization: []string{"Org"}},
		NotBefore: time.Date(2011, 1, 1, 0, 0, 0, 0, time.UTC), NotAfter: time.Date(2036, 1, 1, 0, 0, 0, 0, time.UTC)}
	oidCN, oidO := asn1.ObjectIdentifier{2, 5, 4, 3}, asn1.ObjectIdentifier{2, 5, 4, 10}
	raw := func(rdns ...[]pkix.AttributeTypeAndValue) []byte {
		var seq pkix.RDNSequence
		for _, r := range rdns {
			seq = append(seq, r)
		}
		b, err := asn1.Marshal(seq)
		if err != nil {
			tb.Fatal(err)
		}
		return b
	}
	atv := func(oid asn1.ObjectIdentifier, tag int, b []byte) pkix.AttributeTypeAndValue {
		return pkix.AttributeTypeAndValue{Type: oid, Value: asn1.RawValue{Tag: tag, Bytes: b}}
	}
	var bmp []byte
	for _, c := range utf16.Encode([]rune("Büro CA")) {
		bmp = append(bmp, byte(c>>8), byte(c))
	}
	variants := map[string]*x509.Certificate{
		"printable CN":      {Subject: pkix.Name{CommonName: "Windows UEFI CA 2023", Country: []string{"US"}}},
		"UTF-8 CN":          {Subject: pkix.Name{CommonName: "Zürich Firmware CA"}},
		"no CN":             {Subject: pkix.Name{Organization: []string{"Red Hat, Inc."}, OrganizationalUnit: []string{"Firmware"}, Country: []string{"US"}}},
		"empty CN":          {RawSubject: raw([]pkix.AttributeTypeAndValue{{Type: oidO, Value: "Org"}}, []pkix.AttributeTypeAndValue{{Type: oidCN, Value: ""}})},
		"two CNs":           {RawSubject: raw([]pkix.AttributeTypeAndValue{{Type: oidCN, Value: "first"}}, []pkix.AttributeTypeAndValue{{Type: oidCN, Value: "last"}})},
		"multi-valued RDN":  {RawSubject: raw([]pkix.AttributeTypeAndValue{{Type: oidO, Value: "A"}, {Type: oidO, Value: "B"}})},
		"BMPString CN":      {RawSubject: raw([]pkix.AttributeTypeAndValue{atv(oidCN, asn1.TagBMPString, append(bmp, 0, 0))})},
		"T61String CN":      {RawSubject: raw([]pkix.AttributeTypeAndValue{atv(oidCN, asn1.TagT61String, []byte("Caf\xe9 CA"))})},
		"T61String, no CN":  {RawSubject: raw([]pkix.AttributeTypeAndValue{atv(oidO, asn1.TagT61String, []byte("Soci\xe9t\xe9"))})},
		"IA5String CN":      {RawSubject: raw([]pkix.AttributeTypeAndValue{atv(oidCN, asn1.TagIA5String, []byte("ia5.example"))})},
		"GeneralizedTime":   {Subject: pkix.Name{CommonName: "Long"}, NotAfter: time.Date(2061, 3, 4, 5, 6, 7, 0, time.UTC)},
		"1990s UTCTime":     {Subject: pkix.Name{CommonName: "Old"}, NotBefore: time.Date(1999, 12, 31, 23, 59, 59, 0, time.UTC)},
		"issued by another": {Subject: pkix.Name{CommonName: "Leaf"}},
	}
	out := map[string][]byte{}
	for name, tmpl := range variants {
		tmpl.SerialNumber = big.NewInt(42)
		if tmpl.NotBefore.IsZero() {
			tmpl.NotBefore = time.Date(2023, 6, 13, 0, 0, 0, 0, time.UTC)
		}
		if tmpl.NotAfter.IsZero() {
			tmpl.NotAfter = exp
		}
		parent := tmpl
		if name == "issued by another" {
			parent = ca
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &k.PublicKey, k)
		if err != nil {
			tb.Fatalf("%s: %v", name, err)
		}
		out[name] = der
	}
	return out
}

// TestCertificateAsX509: every variant, and every certificate of every
// OVMF template here and in the release chroots, shows the fields x509
// showed.
func TestCertificateAsX509(t *testing.T) {
	for name, der := range certVariants(t) {
		t.Run(name, func(t *testing.T) {
			if _, err := viaX509(der); err != nil {
				t.Fatalf("x509 refuses the variant: %v", err)
			}
			sameAsX509(t, der)
		})
	}
	for _, tree := range append([]string{""}, globDirs("/var/tmp/vtpmctl-releases/*/root")...) {
		files, _ := filepath.Glob(filepath.Join(tree, "/usr/share/OVMF/OVMF_VARS*.fd"))
		for _, p := range files {
			s, err := ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range s.Variables {
				for _, der := range x509Entries(t, v.Data) {
					t.Run(p+"/"+v.Name, func(t *testing.T) { sameAsX509(t, der) })
				}
			}
		}
	}
}

// x509Entries returns the DER of every X.509 entry of the lists in b (nil
// when b is no signature list: most variables are not).
func x509Entries(t *testing.T, b []byte) [][]byte {
	if _, err := ParseSignatureLists(b); err != nil || len(b) == 0 {
		return nil
	}
	var out [][]byte
	for off := 0; off < len(b); {
		l, _ := nextList(b, off)
		for e := 0; l.typ == CertX509GUID && e < len(l.body); e += l.sigSize {
			out = append(out, l.body[e+16:e+l.sigSize])
		}
		off += l.size
	}
	return out
}

// TestCertificateMalformed: entries that are no certificate say why, and
// keep their owner and digest.
func TestCertificateMalformed(t *testing.T) {
	good := certVariants(t)["printable CN"]
	for _, tc := range []struct {
		name string
		der  []byte
		want string
	}{
		{"empty", nil, "malformed certificate"},
		{"truncated", good[:len(good)-1], "malformed certificate"},
		{"padded", append(append([]byte{}, good...), 0), "trailing data"},
		{"indefinite length", []byte{0x30, 0x80, 0, 0}, "malformed certificate"},
		{"long form for a short length", []byte{0x30, 0x81, 0x01, 0}, "malformed certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := certificate(tc.der, ownerA)
			if !strings.Contains(c.ParseError, tc.want) || c.Subject != "" || c.Owner != ownerA || c.SHA256 != sha256.Sum256(tc.der) {
				t.Fatalf("read as %+v, want ParseError %q", c, tc.want)
			}
		})
	}
}

// FuzzCertificateAsX509: whatever x509 reads, the DER walk reads the same.
func FuzzCertificateAsX509(f *testing.F) {
	for _, der := range certVariants(f) {
		f.Add(der)
	}
	f.Fuzz(func(t *testing.T, der []byte) {
		sameAsX509(t, der)
		certificate(der, ownerA) // and never panics on what x509 refuses
	})
}
