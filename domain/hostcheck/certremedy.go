package hostcheck

// The 2023 certificates reach a guest's NVRAM one way on these hosts.
// Windows cannot add the KEK itself: a KEK update must be signed by the
// platform key, and OVMF's PK is the distribution's (Debian's, Red
// Hat's), which Microsoft's signed KEK updates do not cover
// (microsoft/secureboot_objects issues 318 and 369). Only db/dbx updates
// signed by a KEK already enrolled apply inside the guest. So the KEK is
// added offline, on the compute host, into the guest's variable file;
// and where the host's Nova recreates that file from the template at
// every start, only a template that enrols them helps.

// CertRemedy is what brings a guest's NVRAM to the 2023 certificates.
type CertRemedy string

const (
	// CertRemedyNone: nothing to add (Certs2023), or nothing of
	// Microsoft's applies (the site's own keys, setup mode, no NVRAM).
	CertRemedyNone CertRemedy = "none"
	// CertRemedyUpdateNVRAM: the host keeps the guest's NVRAM and it
	// lacks 2023 certificates: add them to its file, on the host, with
	// the guest stopped (host secure-boot update).
	CertRemedyUpdateNVRAM CertRemedy = "update-nvram"
	// CertRemedyPackageUpdate: the host recreates the NVRAM from the
	// template at every start, so an updated file would not last: the
	// template must carry them (Debian's ovmf 2026.08, forky; bookworm's
	// and trixie's enrol the 2011 set only), or Nova must keep NVRAM
	// first.
	CertRemedyPackageUpdate CertRemedy = "package-update"
	// CertRemedyUnknown: the NVRAM could not be read, whether the host
	// keeps it is unknown, or the fleet has no view of the guest.
	CertRemedyUnknown CertRemedy = "unknown"
	// CertRemedyBlocked: the file lacks them and cannot take them in
	// place (no room, not an authenticated store): only a look at the
	// file itself (host secure-boot status) finds it, so the fleet's
	// counts, decided from reports, never hold it.
	CertRemedyBlocked CertRemedy = "blocked"
)

// CertRemedies from the most work; counts and gauges list them in this order.
var CertRemedies = []CertRemedy{CertRemedyPackageUpdate, CertRemedyUpdateNVRAM, CertRemedyUnknown, CertRemedyNone}

// CertsClasses is every class counts and gauges list (0 included),
// those lacking 2023 certificates first.
var CertsClasses = []Certs{Certs2011, CertsPartial, CertsUnreadable, CertsUnknown, Certs2023, CertsOther, CertsNoKeys, CertsNoNVRAM}

// CertRemedyOf decides a guest's remedy from its class and its host's
// NVRAM-KEPT verdict. Pure: a report read back decides it the same.
func CertRemedyOf(c Certs, nvramKept TriState) CertRemedy {
	switch c {
	case Certs2011, CertsPartial:
	case Certs2023, CertsOther, CertsNoKeys, CertsNoNVRAM:
		return CertRemedyNone
	default: // unreadable, no view, or a class this version does not know
		return CertRemedyUnknown
	}
	switch nvramKept {
	case Yes:
		return CertRemedyUpdateNVRAM
	case No:
		return CertRemedyPackageUpdate
	}
	return CertRemedyUnknown
}

// RemedyOfCerts is the guest's remedy: the one its report gives, or,
// for a report written before it did, decided from the class and the
// host's verdict the report does give.
func (b *GuestBitLocker) RemedyOfCerts() CertRemedy {
	if b.CertsRemedy != "" {
		return b.CertsRemedy
	}
	return CertRemedyOf(b.Certs, b.NVRAMKept)
}

// SecureBootCounts counts vTPM guests by the certificates their NVRAM
// enrols and by remedy. Every class and remedy is a key, 0 included, so a
// reader sees one fall to 0 rather than vanish.
type SecureBootCounts struct {
	ByCerts  map[Certs]int      `json:"by_certificates"`
	ByRemedy map[CertRemedy]int `json:"by_remedy"`
}

// NewSecureBootCounts is every class and remedy at 0.
func NewSecureBootCounts() *SecureBootCounts {
	c := &SecureBootCounts{ByCerts: make(map[Certs]int, len(CertsClasses)), ByRemedy: make(map[CertRemedy]int, len(CertRemedies))}
	for _, k := range CertsClasses {
		c.ByCerts[k] = 0
	}
	for _, r := range CertRemedies {
		c.ByRemedy[r] = 0
	}
	return c
}

// Add counts one guest; nil (no view of it) is unknown in both, and so
// is a class this version does not know (its keys stay CertsClasses).
func (c *SecureBootCounts) Add(b *GuestBitLocker) {
	if b == nil {
		c.ByCerts[CertsUnknown]++
		c.ByRemedy[CertRemedyUnknown]++
		return
	}
	k := b.Certs
	if _, ok := c.ByCerts[k]; !ok {
		k = CertsUnknown
	}
	r := b.RemedyOfCerts()
	if _, ok := c.ByRemedy[r]; !ok {
		r = CertRemedyUnknown
	}
	c.ByCerts[k]++
	c.ByRemedy[r]++
}

// Merge adds o's counts to c.
func (c *SecureBootCounts) Merge(o *SecureBootCounts) {
	for k, n := range o.ByCerts {
		c.ByCerts[k] += n
	}
	for k, n := range o.ByRemedy {
		c.ByRemedy[k] += n
	}
}

// CountSecureBoot counts guests by their views (a guest without one is
// unknown).
func CountSecureBoot(guests []Guest) *SecureBootCounts {
	c := NewSecureBootCounts()
	for i := range guests {
		c.Add(guests[i].BitLocker)
	}
	return c
}
