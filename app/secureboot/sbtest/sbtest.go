// Package sbtest builds the UEFI variable stores and libvirt domains the
// tests of `host secure-boot` read and write: stores laid out as OVMF's
// templates are (uefi.BuildVarStore), with self-signed certificates under
// Microsoft's 2011 names standing in for the real ones, which only the
// distributions' templates carry.
package sbtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"sync"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/uefi"
)

var (
	certsOnce sync.Once
	certs     map[string][]byte
)

// Names are the certificates Cert makes, with their expiry.
var Names = []struct {
	CN    string
	Until time.Time
}{
	{"Test Platform Key", time.Date(2037, 1, 1, 0, 0, 0, 0, time.UTC)},
	{"Microsoft Corporation KEK CA 2011", time.Date(2026, 6, 24, 20, 41, 29, 0, time.UTC)},
	{"Microsoft Windows Production PCA 2011", time.Date(2026, 10, 19, 18, 51, 42, 0, time.UTC)},
	{"Microsoft Corporation UEFI CA 2011", time.Date(2026, 6, 27, 21, 32, 45, 0, time.UTC)},
	{"Site KEK", time.Date(2036, 1, 1, 0, 0, 0, 0, time.UTC)},
}

// Cert is a self-signed DER certificate named cn, one of Names, made
// once per process (so a store built twice is the same bytes).
func Cert(cn string) []byte {
	certsOnce.Do(func() {
		certs = map[string][]byte{}
		for _, c := range Names {
			k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			if err != nil {
				panic(err)
			}
			tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: c.CN},
				NotBefore: time.Date(2011, 6, 24, 0, 0, 0, 0, time.UTC), NotAfter: c.Until}
			der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
			if err != nil {
				panic(err)
			}
			certs[c.CN] = der
		}
	})
	der, ok := certs[cn]
	if !ok {
		panic("sbtest: no certificate " + cn)
	}
	return der
}

var (
	// PKOwner owns the test PK (a distribution's GUID in real templates).
	PKOwner = uefi.MustGUID("55555555-0000-4000-8000-000000000001")
	// BootVar is a variable the guest set itself: an update keeps it.
	BootVar = uefi.Variable{Name: "Boot0000", Vendor: uefi.GlobalVariable, Attributes: 0x7, Data: []byte("boot entry set inside the guest")}
	dbxHash = sha256.Sum256([]byte("a revoked boot manager"))
)

// SBVar is one Secure Boot variable as OVMF's templates carry it:
// time-based authenticated, its lists concatenated.
func SBVar(name string, vendor uefi.GUID, lists ...[]byte) uefi.Variable {
	var data []byte
	for _, l := range lists {
		data = append(data, l...)
	}
	return uefi.Variable{Name: name, Vendor: vendor, Attributes: 0x27, TimeStamp: [16]byte{0xe6, 0x07, 1, 1}, Data: data}
}

// Vars2011 are a store like bookworm's template: PK, the 2011 KEK and
// db, one dbx hash, and a boot entry the guest set.
func Vars2011() []uefi.Variable {
	ms, x509 := uefi.MicrosoftOwner, uefi.CertX509GUID
	return []uefi.Variable{
		SBVar("PK", uefi.GlobalVariable, uefi.SignatureList(x509, PKOwner, Cert("Test Platform Key"))),
		SBVar("KEK", uefi.GlobalVariable, uefi.SignatureList(x509, ms, Cert("Microsoft Corporation KEK CA 2011"))),
		SBVar("db", uefi.ImageSecurityDatabase, uefi.SignatureList(x509, ms, Cert("Microsoft Windows Production PCA 2011")),
			uefi.SignatureList(x509, ms, Cert("Microsoft Corporation UEFI CA 2011"))),
		SBVar("dbx", uefi.ImageSecurityDatabase, uefi.SignatureList(uefi.CertSHA256GUID, ms, dbxHash[:])),
		BootVar,
	}
}

// Store2011 is Vars2011 in a 64 KiB store.
func Store2011() []byte { return uefi.BuildVarStore(Vars2011()) }

// Store2023 is Store2011 already updated (at a fixed time).
func Store2023() []byte {
	b, _, err := uefi.AddMicrosoft2023(Store2011(), time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		panic(err)
	}
	return b
}

// StoreSetupMode has dbx and a boot entry, no PK.
func StoreSetupMode() []byte { return uefi.BuildVarStore(Vars2011()[3:]) }

// StorePlain is a formatted store whose header says plain variables: a
// firmware build without Secure Boot.
func StorePlain() []byte {
	b := uefi.BuildVarStore(nil)
	copy(b[72:88], uefi.VariableGUID[:])
	return b
}

// StoreFull is Store2011 with a filler that leaves no room for the 2023
// certificates, even compacted.
func StoreFull() []byte {
	vars := Vars2011()
	used := 28
	for _, v := range vars {
		used += (60 + 2*(len(v.Name)+1) + len(v.Data) + 3) &^ 3
	}
	fill := 64<<10 - used - 60 - 2*len("Filler\x00") - 64
	return uefi.BuildVarStore(append(vars, uefi.Variable{Name: "Filler", Vendor: PKOwner, Attributes: 0x7, Data: make([]byte, fill)}))
}

// DomainXML is a Nova domain with a vTPM: UEFI with Secure Boot and its
// NVRAM file, or BIOS when nvram is "".
func DomainXML(name, uuid, server, nvram string) string {
	os := `<os><type>hvm</type></os>`
	if nvram != "" {
		os = fmt.Sprintf(`<os firmware='efi'><type machine='q35'>hvm</type><firmware><feature enabled='yes' name='secure-boot'/></firmware><loader secure='yes' type='pflash'>/usr/share/OVMF/OVMF_CODE_4M.ms.fd</loader><nvram template='/usr/share/OVMF/OVMF_VARS_4M.ms.fd'>%s</nvram></os>`, nvram)
	}
	return fmt.Sprintf(`<domain type='kvm'><name>%s</name><uuid>%s</uuid><metadata><nova:instance xmlns:nova="http://openstack.org/xmlns/libvirt/nova/1.1"><nova:name>%s</nova:name></nova:instance></metadata>%s<devices><tpm model='tpm-crb'><backend type='emulator' version='2.0'/></tpm></devices></domain>`,
		name, uuid, server, os)
}

// Libvirt answers as a libvirtd with these domains would (the
// secureboot.Libvirt seam; wrap Connect in a secureboot.Connect).
type Libvirt struct {
	Domains []string
	States  map[string]hostcheck.DomainState
	Saved   map[string]bool
	// After: states from the second connection on (a guest started
	// between the plan and the write).
	After         map[string]hostcheck.DomainState
	Conns, Closed int
}

// NewLibvirt is a libvirtd without domains.
func NewLibvirt() *Libvirt {
	return &Libvirt{States: map[string]hostcheck.DomainState{}, Saved: map[string]bool{}}
}

// Define adds a domain in state.
func (l *Libvirt) Define(xml, uuid string, state hostcheck.DomainState) {
	l.Domains = append(l.Domains, xml)
	l.States[uuid] = state
}

// Connect opens a connection.
func (l *Libvirt) Connect(string) (*Conn, error) {
	l.Conns++
	return &Conn{l: l, n: l.Conns}, nil
}

// Conn is one connection to Libvirt.
type Conn struct {
	l *Libvirt
	n int
}

func (c *Conn) Domains() ([]string, error) { return c.l.Domains, nil }

func (c *Conn) DomainState(uuid string) (hostcheck.DomainState, bool, error) {
	if s, ok := c.l.After[uuid]; ok && c.n > 1 {
		return s, false, nil
	}
	s, ok := c.l.States[uuid]
	if !ok {
		return "", false, fmt.Errorf("Domain not found: no domain with matching uuid '%s'", uuid)
	}
	return s, c.l.Saved[uuid], nil
}

func (c *Conn) Close() error { c.l.Closed++; return nil }

// StoreSiteKeys enrols the site's own keys and no Microsoft certificate
// (host check's class "other"), as a snakeoil template does.
func StoreSiteKeys() []byte {
	x509 := uefi.CertX509GUID
	return uefi.BuildVarStore([]uefi.Variable{
		SBVar("PK", uefi.GlobalVariable, uefi.SignatureList(x509, PKOwner, Cert("Test Platform Key"))),
		SBVar("KEK", uefi.GlobalVariable, uefi.SignatureList(x509, PKOwner, Cert("Site KEK"))),
		SBVar("db", uefi.ImageSecurityDatabase, uefi.SignatureList(x509, PKOwner, Cert("Site KEK"))),
	})
}
