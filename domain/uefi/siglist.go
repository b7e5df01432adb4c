package uefi

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"time"
)

var (
	CertX509GUID   = MustGUID("a5c059a1-94e4-4aa7-87b5-ab155c2bf072") // EFI_CERT_X509_GUID
	CertSHA256GUID = MustGUID("c1c41626-504c-4092-aca9-41f936934328") // EFI_CERT_SHA256_GUID
	// MicrosoftOwner is the SignatureOwner Microsoft's entries carry.
	MicrosoftOwner = MustGUID("77fa9abd-0359-4d32-bd60-28f4e78f784b")
)

const sigListHdrLen = 28 // EFI_SIGNATURE_LIST without its signature header

// Certificate is one X.509 entry of a signature list. Its fields are
// decoded from the entry's DER once; the owner and digest stay binary
// (hex only when printed) so that a list of thousands costs little more
// than itself.
type Certificate struct {
	Subject   string    `json:"subject"` // CN (the whole DN when there is none)
	Issuer    string    `json:"issuer"`
	NotBefore time.Time `json:"not_before"`
	NotAfter  time.Time `json:"not_after"`
	Owner     GUID      `json:"owner"` // SignatureOwner
	SHA256    Digest    `json:"sha256"`
	// ParseError: the entry is not a certificate whose names and validity
	// can be read; kept so that the count stays right.
	ParseError string `json:"parse_error,omitempty"`
}

// Digest is a SHA-256 digest, printed in hex.
type Digest [sha256.Size]byte

func (d Digest) String() string { return hex.EncodeToString(d[:]) }

// MarshalText: JSON shows a digest as its hex string.
func (d Digest) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// SignatureDB is the content of PK, KEK, db or dbx.
type SignatureDB struct {
	Certificates []Certificate `json:"certificates"`
	SHA256       int           `json:"sha256_hashes"` // EFI_CERT_SHA256 entries
	Other        int           `json:"other_entries"` // entries of any other type
	// TooShort: X.509 entries with fewer than minCertDER bytes of DER,
	// too short to be any certificate: counted, not read, so that a list
	// of a million 16-byte entries costs nothing per entry.
	TooShort int `json:"too_short_entries,omitempty"`
}

// minCertDER is fewer bytes than any X.509 certificate's DER (the
// smallest, a self-signed Ed25519 one with one-letter names, is over
// 150): an entry below it is counted in TooShort.
const minCertDER = 64

// Entries is the number of entries of every kind.
func (d *SignatureDB) Entries() int {
	if d == nil {
		return 0
	}
	return len(d.Certificates) + d.SHA256 + d.Other + d.TooShort
}

// ParseSignatureLists reads a sequence of EFI_SIGNATURE_LISTs.
func ParseSignatureLists(b []byte) (*SignatureDB, error) {
	return ParseSignatureListsContext(context.Background(), b)
}

// ParseSignatureListsContext is ParseSignatureLists stopping with ctx's
// error once ctx is done. Its memory is one Certificate per X.509 entry
// (allocated at once, the lists counted first) and their names' strings:
// a fraction of the input for real certificates.
func ParseSignatureListsContext(ctx context.Context, b []byte) (*SignatureDB, error) {
	p := sigParse{ctx: ctx, db: &SignatureDB{}}
	n, err := p.count(b)
	if err != nil {
		return nil, err
	}
	if n > 0 {
		p.db.Certificates = make([]Certificate, 0, n)
	}
	for off := 0; off < len(b); {
		l, _ := nextList(b, off) // checked by count
		if err := p.list(l); err != nil {
			return nil, err
		}
		off += l.size
	}
	return p.db, nil
}

// rawList is one EFI_SIGNATURE_LIST: its type, its whole size and its
// entries (each SignatureOwner, then data) of sigSize bytes.
type rawList struct {
	typ           GUID
	size, sigSize int
	body          []byte
}

// nextList checks and returns the list at off.
func nextList(b []byte, off int) (rawList, error) {
	le := binary.LittleEndian
	r := b[off:]
	if len(r) < sigListHdrLen {
		return rawList{}, fmt.Errorf("signature list at offset %d: %d bytes left, header needs %d", off, len(r), sigListHdrLen)
	}
	var typ GUID
	copy(typ[:], r[:16])
	listSize, hdrSize, sigSize := uint64(le.Uint32(r[16:20])), uint64(le.Uint32(r[20:24])), uint64(le.Uint32(r[24:28]))
	if listSize > uint64(len(r)) || listSize < sigListHdrLen+hdrSize {
		return rawList{}, fmt.Errorf("signature list at offset %d: size %d does not fit (%d bytes left, header %d)", off, listSize, len(r), hdrSize)
	}
	if sigSize < 16 {
		return rawList{}, fmt.Errorf("signature list at offset %d: signature size %d is smaller than its owner GUID", off, sigSize)
	}
	body := r[sigListHdrLen+hdrSize : listSize]
	if uint64(len(body))%sigSize != 0 {
		return rawList{}, fmt.Errorf("signature list at offset %d: %d bytes of signatures are not a multiple of %d", off, len(body), sigSize)
	}
	return rawList{typ: typ, size: int(listSize), sigSize: int(sigSize), body: body}, nil
}

// sigParse is one ParseSignatureListsContext; seen counts lists and
// entries for the context checks.
type sigParse struct {
	ctx  context.Context
	db   *SignatureDB
	seen int
}

// tick counts one list or entry, and looks at the context at the first
// and every checkEvery-th.
func (p *sigParse) tick() error {
	check := p.seen%checkEvery == 0
	p.seen++
	if check {
		return p.ctx.Err()
	}
	return nil
}

// count checks every list's header and counts the X.509 entries, before
// anything is allocated for them.
func (p *sigParse) count(b []byte) (int, error) {
	n := 0
	for off := 0; off < len(b); {
		if err := p.tick(); err != nil {
			return 0, err
		}
		l, err := nextList(b, off)
		if err != nil {
			return 0, err
		}
		if l.typ == CertX509GUID && l.sigSize-16 >= minCertDER {
			n += len(l.body) / l.sigSize
		}
		off += l.size
	}
	return n, nil
}

// list reads one list: its certificates, or the count of its entries.
func (p *sigParse) list(l rawList) error {
	if err := p.tick(); err != nil {
		return err
	}
	if n := len(l.body) / l.sigSize; l.typ != CertX509GUID || l.sigSize-16 < minCertDER { // counted, not read: no loop over hashes
		switch l.typ {
		case CertSHA256GUID:
			p.db.SHA256 += n
		case CertX509GUID:
			p.db.TooShort += n
		default:
			p.db.Other += n
		}
		return nil
	}
	for e := 0; e < len(l.body); e += l.sigSize {
		if err := p.tick(); err != nil {
			return err
		}
		var owner GUID
		copy(owner[:], l.body[e:e+16])
		p.db.Certificates = append(p.db.Certificates, certificate(l.body[e+16:e+l.sigSize], owner))
	}
	return nil
}

// certificate reads one X.509 entry; one that cannot be read keeps its
// owner and digest, and says why in ParseError.
func certificate(der []byte, owner GUID) Certificate {
	c := Certificate{Owner: owner, SHA256: sha256.Sum256(der)}
	f, err := readCertificate(der)
	if err == nil {
		c.Subject, err = name(f.subject)
	}
	if err == nil {
		c.Issuer, err = name(f.issuer)
	}
	if err != nil {
		c.Subject, c.Issuer, c.ParseError = "", "", err.Error()
		return c
	}
	c.NotBefore, c.NotAfter = f.notBefore.UTC(), f.notAfter.UTC()
	return c
}

// SecureBoot is what a store enrols: nil where the variable is absent.
type SecureBoot struct {
	PK, KEK, DB, DBX *SignatureDB
}

// SecureBoot reads PK, KEK, db and dbx from the store.
func (s *VarStore) SecureBoot() (*SecureBoot, error) {
	return s.SecureBootContext(context.Background())
}

// SecureBootContext is SecureBoot stopping with ctx's error once ctx is
// done.
func (s *VarStore) SecureBootContext(ctx context.Context) (*SecureBoot, error) {
	sb := &SecureBoot{}
	for _, v := range []struct {
		name   string
		vendor GUID
		dst    **SignatureDB
	}{{"PK", GlobalVariable, &sb.PK}, {"KEK", GlobalVariable, &sb.KEK}, {"db", ImageSecurityDatabase, &sb.DB}, {"dbx", ImageSecurityDatabase, &sb.DBX}} {
		vr, ok := s.Get(v.name, v.vendor)
		if !ok {
			continue
		}
		db, err := ParseSignatureListsContext(ctx, vr.Data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", v.name, err)
		}
		*v.dst = db
	}
	return sb, nil
}

// Has says whether any certificate's subject is cn.
func (d *SignatureDB) Has(cn string) bool {
	if d == nil {
		return false
	}
	for _, c := range d.Certificates {
		if c.Subject == cn {
			return true
		}
	}
	return false
}
