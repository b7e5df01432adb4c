package migration

import (
	"github.com/vtpmctl/vtpmctl/domain/advice"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
)

// missingKEK: what DOMAIN-TPM adds when the cut-over guest's NVRAM lacks
// Microsoft's KEK 2K CA 2023 (both "" when it has it). Windows cannot add
// it (a KEK update must be signed by the platform key, and OVMF's is the
// distribution's), so the guest takes no future db/dbx update until it is
// added offline on its host; the fix is that host's way there
// (hostcheck.CertRemedyOf). A warning, not a failure: the guest boots
// and its vTPM is there.
func missingKEK(host, server string, b *hostcheck.GuestBitLocker, w advice.Words) (msg, fix string) {
	if !hostcheck.MissesKEK2023(b.Missing) {
		return "", ""
	}
	msg = "; its NVRAM lacks the 2023 KEK (Microsoft Corporation KEK 2K CA 2023): Windows cannot add it itself, and the guest takes no future db/dbx update until it is added offline on " + host
	const pcr7 = "escrow the guest's BitLocker recovery key or suspend BitLocker first: adding the KEK changes PCR 7"
	update := w.Command(advice.SecureBootUpdate)
	switch b.RemedyOfCerts() {
	case hostcheck.CertRemedyUpdateNVRAM:
		fix = "add the 2023 KEK and db certificates to server " + server + "'s NVRAM on " + host + " with the guest stopped (" + update + "); " + pcr7
	case hostcheck.CertRemedyPackageUpdate:
		fix = host + "'s Nova recreates the NVRAM from the template at every start, so an updated file would not last: give " + host +
			" a firmware package whose template enrols the 2023 certificates (Debian's ovmf 2026.08, forky; bookworm's and trixie's enrol the 2011 set only), " +
			"or update Nova to keep NVRAM and then add them (" + update + "); " + pcr7
	default:
		fix = "whether " + host + " keeps the guest's NVRAM is unknown: run " + w.Command(advice.HostCheck) + " there, then add the 2023 KEK on the host with the guest stopped (" + update + "); " + pcr7
	}
	return msg, fix
}
