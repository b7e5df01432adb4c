package uefi

import (
	"bytes"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/binary"
	"errors"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// The few fields of an X.509 certificate a signature list is shown by
// (subject, issuer, validity) are read here by walking its DER, not with
// crypto/x509: ParseCertificate decodes the whole certificate (key,
// extensions) into ~4 KB of fresh memory each, ten times the DER, and a
// db or dbx can hold thousands. The walk allocates only the strings it
// returns. It keeps x509's rules for what it reads (DER lengths, the
// string types and time formats x509 accepts), so that a certificate
// x509 reads shows the same fields here (FuzzCertificateAsX509).

// der is a cursor over DER bytes: each read takes one element off its
// front and returns its content, a subslice of the input.
type der []byte

// errMalformed and the other errors are static: an entry that is not a
// certificate costs no allocation for its ParseError.
var (
	errMalformed   = errors.New("malformed certificate")
	errTrailing    = errors.New("trailing data after the certificate")
	errBadName     = errors.New("malformed distinguished name")
	errBadValidity = errors.New("malformed validity")
)

// DER tags, universal class, and the constructed [0] of a version.
const (
	tagInteger         = 0x02
	tagBitString       = 0x03
	tagOID             = 0x06
	tagUTF8String      = 0x0c
	tagSequence        = 0x30
	tagSet             = 0x31
	tagNumericString   = 0x12
	tagPrintableString = 0x13
	tagT61String       = 0x14
	tagIA5String       = 0x16
	tagUTCTime         = 0x17
	tagGeneralizedTime = 0x18
	tagBMPString       = 0x1e
	tagVersion         = 0xa0
)

// next takes the next element off d: its tag and content. Only DER is
// read: low tag numbers, definite lengths of at most 4 bytes, each in its
// shortest form (as cryptobyte, which x509 uses, requires).
func (d *der) next() (tag byte, content der, ok bool) {
	b := *d
	if len(b) < 2 || b[0]&0x1f == 0x1f {
		return 0, nil, false
	}
	tag, n, hdr := b[0], uint64(b[1]), uint64(2)
	if n&0x80 != 0 {
		k := n & 0x7f
		if k == 0 || k > 4 || uint64(len(b)) < 2+k || b[2] == 0 {
			return 0, nil, false
		}
		n = 0
		for _, c := range b[2 : 2+k] {
			n = n<<8 | uint64(c)
		}
		if n < 0x80 {
			return 0, nil, false
		}
		hdr += k
	}
	if n > uint64(len(b))-hdr {
		return 0, nil, false
	}
	*d = b[hdr+n:]
	return tag, b[hdr : hdr+n], true
}

// read takes the next element, which must be a want.
func (d *der) read(want byte) (der, bool) {
	tag, c, ok := d.next()
	if !ok || tag != want {
		return nil, false
	}
	return c, true
}

// readElement is read returning the whole element, tag and length too.
func (d *der) readElement(want byte) (der, bool) {
	start := *d
	if _, ok := d.read(want); !ok {
		return nil, false
	}
	return start[:len(start)-len(*d)], true
}

// peek says whether the next element is a want.
func (d der) peek(want byte) bool {
	return len(d) > 0 && d[0] == want
}

// certFields are what a signature list shows of a certificate; the
// names are slices of its DER (whole Name elements), decoded by name.
type certFields struct {
	issuer, subject der
	notBefore       time.Time
	notAfter        time.Time
}

// readCertificate walks a Certificate (RFC 5280 4.1) to the end of its
// subject, and checks the two elements after the TBSCertificate are there.
func readCertificate(b []byte) (certFields, error) {
	var f certFields
	d := der(b)
	cert, ok := d.read(tagSequence)
	if !ok {
		return f, errMalformed
	}
	if len(d) != 0 {
		return f, errTrailing
	}
	tbs, ok := cert.read(tagSequence)
	if !ok {
		return f, errMalformed
	}
	if _, ok := cert.read(tagSequence); !ok { // signatureAlgorithm
		return f, errMalformed
	}
	if _, ok := cert.read(tagBitString); !ok { // signatureValue (x509 ignores what follows it)
		return f, errMalformed
	}
	if tbs.peek(tagVersion) {
		tbs.next()
	}
	_, ok1 := tbs.read(tagInteger)  // serialNumber
	_, ok2 := tbs.read(tagSequence) // signature
	issuer, ok3 := tbs.readElement(tagSequence)
	validity, ok4 := tbs.read(tagSequence)
	subject, ok5 := tbs.readElement(tagSequence)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 {
		return f, errMalformed
	}
	f.issuer, f.subject = issuer, subject
	var err error
	if f.notBefore, err = readTime(&validity); err != nil {
		return f, err
	}
	if f.notAfter, err = readTime(&validity); err != nil {
		return f, err
	}
	return f, nil
}

// name is what Certificate shows of a Name element: its CN, else (no CN,
// or an empty one) its whole RFC 2253 text, as x509's reader showed it.
func name(elem der) (string, error) {
	var cn der
	var cnTag byte
	err := eachAttribute(elem, func(_ bool, oid der, tag byte, v der) error {
		if bytes.Equal(oid, oidCommonName) { // the last CN, as pkix.Name keeps
			cn, cnTag = v, tag
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if s := decodeString(cnTag, cn); s != "" {
		return s, nil
	}
	return distinguishedName(elem)
}

// oidCommonName is the element of 2.5.4.3, id-at-commonName.
var oidCommonName = []byte{tagOID, 3, 0x55, 0x04, 0x03}

// eachAttribute checks a Name element (a SEQUENCE of SETs of attributes)
// as x509 does, every value a string of a type it reads, and calls f
// with each attribute in order (oid: the whole OID element); first marks
// the first of its SET.
func eachAttribute(elem der, f func(first bool, oid der, tag byte, v der) error) error {
	name, ok := elem.read(tagSequence)
	if !ok {
		return errBadName
	}
	for len(name) > 0 {
		set, ok := name.read(tagSet)
		if !ok {
			return errBadName
		}
		for first := true; len(set) > 0; first = false {
			atv, ok := set.read(tagSequence)
			if !ok {
				return errBadName
			}
			oid, ok1 := atv.readElement(tagOID)
			tag, v, ok2 := atv.next()
			if !ok1 || !ok2 || len(oid) == 2 || !validString(tag, v) {
				return errBadName
			}
			if err := f(first, oid, tag, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// validString says whether v is a string of a type x509 reads in names,
// without decoding it.
func validString(tag byte, v der) bool {
	switch tag {
	case tagUTF8String:
		return utf8.Valid(v)
	case tagPrintableString:
		return all(v, isPrintable)
	case tagIA5String:
		return all(v, func(c byte) bool { return c < utf8.RuneSelf })
	case tagNumericString:
		return all(v, func(c byte) bool { return '0' <= c && c <= '9' || c == ' ' })
	case tagT61String: // read as Latin-1, as x509 and BoringSSL do
		return true
	case tagBMPString:
		return validBMP(v)
	}
	return false
}

// decodeString decodes a string validString accepted.
func decodeString(tag byte, v der) string {
	switch tag {
	case tagT61String:
		buf := make([]byte, 0, 2*len(v))
		for _, c := range v {
			buf = utf8.AppendRune(buf, rune(c))
		}
		return string(buf)
	case tagBMPString:
		v = trimBMP(v)
		buf := make([]byte, 0, len(v))
		for i := 0; i < len(v); i += 2 {
			buf = utf8.AppendRune(buf, rune(binary.BigEndian.Uint16(v[i:])))
		}
		return string(buf)
	}
	return string(v)
}

// validBMP: UCS-2 big-endian, no surrogates or noncharacters (x509's
// rule); a trailing NUL is allowed and dropped.
func validBMP(v der) bool {
	if len(v)%2 != 0 {
		return false
	}
	v = trimBMP(v)
	for i := 0; i < len(v); i += 2 {
		c := rune(binary.BigEndian.Uint16(v[i:]))
		if c == 0xfffe || c == 0xffff || 0xfdd0 <= c && c <= 0xfdef || utf16.IsSurrogate(c) {
			return false
		}
	}
	return true
}

func trimBMP(v der) der {
	if l := len(v); l >= 2 && v[l-1] == 0 && v[l-2] == 0 {
		return v[:l-2]
	}
	return v
}

func all(v der, ok func(byte) bool) bool {
	for _, c := range v {
		if !ok(c) {
			return false
		}
	}
	return true
}

// isPrintable is x509's PrintableString test, '*' and '&' included.
func isPrintable(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' ||
		'\'' <= b && b <= ')' || '+' <= b && b <= '/' ||
		b == ' ' || b == ':' || b == '=' || b == '?' || b == '*' || b == '&'
}

// distinguishedName is the RFC 2253 text of a Name element as x509's
// Subject.String() gives it: the attributes x509's parseName reads, put
// into a pkix.Name the same way. Only for a subject without a CN (rare:
// the allocations of pkix do not matter).
func distinguishedName(elem der) (string, error) {
	var rdns pkix.RDNSequence
	err := eachAttribute(elem, func(first bool, oidElem der, tag byte, v der) error {
		var oid asn1.ObjectIdentifier
		if _, err := asn1.Unmarshal(oidElem, &oid); err != nil {
			return errBadName
		}
		if first {
			rdns = append(rdns, nil)
		}
		last := &rdns[len(rdns)-1]
		*last = append(*last, pkix.AttributeTypeAndValue{Type: oid, Value: decodeString(tag, v)})
		return nil
	})
	if err != nil {
		return "", err
	}
	var n pkix.Name
	n.FillFromRDNSequence(&rdns)
	return n.String(), nil
}

// readTime reads a UTCTime or GeneralizedTime in the formats cryptobyte
// (x509's reader) accepts: each must print back to the same text.
func readTime(d *der) (time.Time, error) {
	tag, v, ok := d.next()
	if !ok {
		return time.Time{}, errBadValidity
	}
	switch tag {
	case tagUTCTime:
		for _, layout := range []string{"060102150405Z0700", "0601021504Z0700"} {
			if t, ok := parseExact(layout, v); ok {
				if t.Year() >= 2050 { // RFC 5280 4.1.2.5.1: 50-99 are 1950-1999
					t = t.AddDate(-100, 0, 0)
				}
				return t, nil
			}
		}
	case tagGeneralizedTime:
		if t, ok := parseExact("20060102150405Z0700", v); ok {
			return t, nil
		}
	}
	return time.Time{}, errBadValidity
}

// parseExact parses v in layout, insisting it is the layout's one spelling
// of that time (DER's "one encoding").
func parseExact(layout string, v der) (time.Time, bool) {
	t, err := time.Parse(layout, string(v))
	if err != nil {
		return time.Time{}, false
	}
	var buf [40]byte
	return t, bytes.Equal(t.AppendFormat(buf[:0], layout), v)
}
