package secureboot

import (
	"fmt"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
)

// Remedies from the most urgent; tables list them in this order. A
// guest's remedy is hostcheck's (the words hosts audit and the report
// count by), with the one only a look at the file finds: blocked.
var Remedies = []hostcheck.CertRemedy{hostcheck.CertRemedyUpdateNVRAM, hostcheck.CertRemedyPackageUpdate, hostcheck.CertRemedyBlocked,
	hostcheck.CertRemedyUnknown, hostcheck.CertRemedyNone}

// TemplatePackage is where a template with the 2023 certificates comes
// from, as read from Debian's packages (uefi.TestRealTemplates pins
// them): the first ovmf whose OVMF_VARS_4M.ms.fd enrols them.
const TemplatePackage = "Debian's ovmf 2026.08 (forky) is the first whose template enrols them; bookworm's (2022.11) and trixie's (2025.02) enrol the 2011 set only"

// NovaKeepsNVRAM names the Nova versions that keep a guest's NVRAM
// (bug 2131730/1633447 fixed).
const NovaKeepsNVRAM = "31.3.0, 32.2.0, 33.0.0 or later in its series"

// decide sets g's remedy from its class and the host's NVRAM-KEPT verdict
// (kept "": a file read alone, its host not asked).
func decide(g *Guest, kept hostcheck.TriState) {
	g.Remedy, g.Detail = remedyOf(g.Certs, kept, g.blocked, len(g.WouldAdd), g.Error)
}

func remedyOf(c hostcheck.Certs, kept hostcheck.TriState, blocked *refusal, adds int, readErr string) (hostcheck.CertRemedy, string) {
	switch c {
	case hostcheck.CertsNoNVRAM:
		return hostcheck.CertRemedyNone, "no NVRAM file named: libvirt creates it from the template at the first start"
	case hostcheck.CertsUnreadable:
		return hostcheck.CertRemedyUnknown, "the NVRAM file could not be read: " + readErr
	case hostcheck.CertsNoKeys:
		return hostcheck.CertRemedyNone, "no PK (setup mode): Secure Boot verifies nothing, and no certificate is added to a store without a PK"
	case hostcheck.CertsOther:
		return hostcheck.CertRemedyNone, "the site's own keys, no Microsoft certificate: Windows' certificate update does not apply"
	case hostcheck.Certs2023:
		if adds > 0 && blocked == nil {
			return hostcheck.CertRemedyNone, fmt.Sprintf("the 2023 certificates Windows needs are enrolled (update would add %d more, the Option ROM CA)", adds)
		}
		return hostcheck.CertRemedyNone, "the 2023 certificates are enrolled"
	}
	switch kept {
	case hostcheck.No:
		return hostcheck.CertRemedyPackageUpdate, "this host's Nova recreates the NVRAM from the template at every stop/start (bug 2131730): an updated file would be lost at the next start; " +
			"update Nova to " + NovaKeepsNVRAM + " and then each guest's file, or give the host a template with the 2023 certificates (" + TemplatePackage + ")"
	case hostcheck.Unknown:
		return hostcheck.CertRemedyUnknown, "whether this host's Nova keeps the NVRAM is unknown (no installed Nova code readable, and Nova 31 and 32 differ by point release): it keeps it from " + NovaKeepsNVRAM
	}
	if blocked != nil {
		return hostcheck.CertRemedyBlocked, "the file cannot take the 2023 certificates in place: " + blocked.detail
	}
	return hostcheck.CertRemedyUpdateNVRAM, fmt.Sprintf("add the %d missing 2023 certificate(s) to the file, from the host with the guest stopped and BitLocker suspended (PCR 7 changes)", adds)
}
