package uefi

import (
	"crypto/sha256"
	"crypto/x509"
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

// Certificate is one X.509 entry of a signature list.
type Certificate struct {
	Subject   string    `json:"subject"` // CN (the whole DN when there is none)
	Issuer    string    `json:"issuer"`
	NotBefore time.Time `json:"not_before"`
	NotAfter  time.Time `json:"not_after"`
	Owner     string    `json:"owner"` // SignatureOwner GUID
	SHA256    string    `json:"sha256"`
	// ParseError: the entry is not a certificate Go's x509 reads; kept so
	// that the count stays right.
	ParseError string `json:"parse_error,omitempty"`
}

// SignatureDB is the content of PK, KEK, db or dbx.
type SignatureDB struct {
	Certificates []Certificate `json:"certificates"`
	SHA256       int           `json:"sha256_hashes"` // EFI_CERT_SHA256 entries
	Other        int           `json:"other_entries"` // entries of any other type
}

// ParseSignatureLists reads a sequence of EFI_SIGNATURE_LISTs.
func ParseSignatureLists(b []byte) (*SignatureDB, error) {
	le := binary.LittleEndian
	db := &SignatureDB{}
	for off := 0; off < len(b); {
		r := b[off:]
		if len(r) < sigListHdrLen {
			return nil, fmt.Errorf("signature list at offset %d: %d bytes left, header needs %d", off, len(r), sigListHdrLen)
		}
		var typ GUID
		copy(typ[:], r[:16])
		listSize, hdrSize, sigSize := uint64(le.Uint32(r[16:20])), uint64(le.Uint32(r[20:24])), uint64(le.Uint32(r[24:28]))
		if listSize > uint64(len(r)) || listSize < sigListHdrLen+hdrSize {
			return nil, fmt.Errorf("signature list at offset %d: size %d does not fit (%d bytes left, header %d)", off, listSize, len(r), hdrSize)
		}
		if sigSize < 16 {
			return nil, fmt.Errorf("signature list at offset %d: signature size %d is smaller than its owner GUID", off, sigSize)
		}
		body := r[sigListHdrLen+hdrSize : listSize]
		if uint64(len(body))%sigSize != 0 {
			return nil, fmt.Errorf("signature list at offset %d: %d bytes of signatures are not a multiple of %d", off, len(body), sigSize)
		}
		for e := uint64(0); e < uint64(len(body)); e += sigSize {
			var owner GUID
			copy(owner[:], body[e:e+16])
			data := body[e+16 : e+sigSize]
			switch typ {
			case CertX509GUID:
				db.Certificates = append(db.Certificates, certificate(data, owner))
			case CertSHA256GUID:
				db.SHA256++
			default:
				db.Other++
			}
		}
		off += int(listSize)
	}
	return db, nil
}

func certificate(der []byte, owner GUID) Certificate {
	sum := sha256.Sum256(der)
	c := Certificate{Owner: owner.String(), SHA256: hex.EncodeToString(sum[:])}
	x, err := x509.ParseCertificate(der)
	if err != nil {
		c.ParseError = err.Error()
		return c
	}
	c.Subject, c.Issuer = x.Subject.CommonName, x.Issuer.CommonName
	if c.Subject == "" {
		c.Subject = x.Subject.String()
	}
	if c.Issuer == "" {
		c.Issuer = x.Issuer.String()
	}
	c.NotBefore, c.NotAfter = x.NotBefore.UTC(), x.NotAfter.UTC()
	return c
}

// SecureBoot is what a store enrols: nil where the variable is absent.
type SecureBoot struct {
	PK, KEK, DB, DBX *SignatureDB
}

// SecureBoot reads PK, KEK, db and dbx from the store.
func (s *VarStore) SecureBoot() (*SecureBoot, error) {
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
		db, err := ParseSignatureLists(vr.Data)
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
