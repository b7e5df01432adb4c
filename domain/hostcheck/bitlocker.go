package hostcheck

import (
	"fmt"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/advice"
	"github.com/vtpmctl/vtpmctl/domain/uefi"
)

// BitLocker seals its key to the TPM and, on a Secure Boot guest, to PCR 7
// (the Secure Boot variables in the guest's own NVRAM). A guest's risk of
// asking for its recovery key therefore depends on three things this host
// decides: does the TPM state survive (KEEP-TPM-STATE), does the NVRAM
// survive (NVRAM-KEPT), and do the NVRAM's db/KEK already hold the 2023
// certificates Windows is moving to (else adding them changes PCR 7; the
// KEK only offline on the host, since Windows cannot add it: certremedy.go).

// Risk is a guest's BitLocker-recovery risk.
type Risk string

const (
	// RiskHigh: the next stop/start or hard reboot changes what BitLocker
	// sealed to (TPM wiped, or enrolled Secure Boot keys recreated from
	// the template): recovery is expected, not possible.
	RiskHigh Risk = "high"
	// RiskMedium: state survives, but a change is coming that alters PCR 7
	// (the 2023 certificate update), or NVRAM without keys is recreated.
	RiskMedium Risk = "medium"
	// RiskUnknown: something that decides it could not be read.
	RiskUnknown Risk = "unknown"
	// RiskLow: TPM state and NVRAM survive and the 2023 certificates are there.
	RiskLow Risk = "low"
)

// RiskLevels from the worst; reports and gauges list levels in this order.
var RiskLevels = []Risk{RiskHigh, RiskMedium, RiskUnknown, RiskLow}

// Rank orders levels, 0 the worst; an unknown string ranks last.
func (r Risk) Rank() int {
	for i, l := range RiskLevels {
		if l == r {
			return i
		}
	}
	return len(RiskLevels)
}

// Certs is which Microsoft Secure Boot certificates a guest's NVRAM enrols.
type Certs string

const (
	Certs2023       Certs = "2023"       // KEK 2K CA 2023, Windows UEFI CA 2023 and Microsoft UEFI CA 2023
	CertsPartial    Certs = "partial"    // some of them
	Certs2011       Certs = "2011"       // only the 2011 set
	CertsOther      Certs = "other"      // keys enrolled, but no Microsoft certificate
	CertsNoKeys     Certs = "no-keys"    // no PK: setup mode, Secure Boot verifies nothing
	CertsNoNVRAM    Certs = "no-nvram"   // not a UEFI guest (no <nvram>)
	CertsUnreadable Certs = "unreadable" // the NVRAM file could not be read or parsed
	// CertsUnknown: no view of the guest (a fleet guest its host's check
	// report lacks); counts only, never a class certsOf gives.
	CertsUnknown Certs = "unknown"
)

// missingKEK is how Missing names the KEK a guest needs before it can
// take future db/dbx updates, and the one Windows cannot add itself.
const missingKEK = "KEK " + kek2023CN

const kek2023CN = "Microsoft Corporation KEK 2K CA 2023"

// guest2023 are the certificates a Windows guest needs (the Option ROM CA
// only matters with option ROMs, which a virtual machine's devices lack).
var guest2023 = []struct{ db, cn string }{
	{"KEK", kek2023CN},
	{"db", "Windows UEFI CA 2023"},
	{"db", "Microsoft UEFI CA 2023"},
}

// GuestBitLocker is one guest's BitLocker view.
type GuestBitLocker struct {
	Risk    Risk     `json:"risk"`
	Reasons []string `json:"reasons"`
	// SecureBoot: the domain's firmware enforces Secure Boot.
	SecureBoot bool   `json:"secure_boot"`
	NVRAM      string `json:"nvram,omitempty"` // the guest's variable file on the host
	Certs      Certs  `json:"certificates"`
	// Missing: the 2023 certificates db/KEK lack ("KEK …", "db …").
	Missing    []string `json:"missing_2023,omitempty"`
	NVRAMError string   `json:"nvram_error,omitempty"`
	// CertsRemedy: what brings the NVRAM to the 2023 certificates here
	// (CertRemedyOf; "" in a report from before it: RemedyOfCerts).
	CertsRemedy CertRemedy `json:"certs_remedy"`
	// NVRAMKept and TPMStateKept: the host's NVRAM-KEPT and
	// KEEP-TPM-STATE verdicts (NVRAMKept "" for a BIOS guest: nothing to
	// keep).
	NVRAMKept    TriState `json:"nvram_kept"`
	TPMStateKept TriState `json:"vtpm_state_kept"`
}

// guestNVRAM is what gather read of one guest's variable file.
type guestNVRAM struct {
	Path       string
	SecureBoot bool
	SB         *uefi.SecureBoot
	Err        error
}

// certsOf classifies what the NVRAM enrols.
func certsOf(n guestNVRAM) (Certs, []string) {
	switch {
	case n.Path == "":
		return CertsNoNVRAM, nil
	case n.Err != nil || n.SB == nil:
		return CertsUnreadable, nil
	case n.SB.PK == nil || len(n.SB.PK.Certificates) == 0:
		return CertsNoKeys, nil
	}
	var missing []string
	for _, m := range guest2023 {
		d := n.SB.KEK
		if m.db == "db" {
			d = n.SB.DB
		}
		if !d.Has(m.cn) {
			missing = append(missing, m.db+" "+m.cn)
		}
	}
	has2011 := false
	for _, cn := range ms2011 {
		has2011 = has2011 || n.SB.KEK.Has(cn) || n.SB.DB.Has(cn)
	}
	switch {
	case len(missing) == 0:
		return Certs2023, nil
	case len(missing) < len(guest2023):
		return CertsPartial, missing
	case has2011:
		return Certs2011, missing
	}
	return CertsOther, missing
}

// assessBitLocker combines the three verdicts into a guest's risk. Pure:
// tpmKept and nvramKept are the host's ("" is Unknown).
func assessBitLocker(n guestNVRAM, tpmKept, nvramKept TriState) *GuestBitLocker {
	b := &GuestBitLocker{SecureBoot: n.SecureBoot, NVRAM: n.Path, TPMStateKept: orUnknown(tpmKept), NVRAMKept: orUnknown(nvramKept)}
	b.Certs, b.Missing = certsOf(n)
	if n.Err != nil {
		b.NVRAMError = n.Err.Error()
	}
	worst := RiskLow
	add := func(r Risk, why string) {
		if r.Rank() < worst.Rank() {
			worst = r
		}
		b.Reasons = append(b.Reasons, why)
	}
	switch b.TPMStateKept {
	case No:
		add(RiskHigh, "this host wipes the vTPM state on stop/start and hard reboot (KEEP-TPM-STATE)")
	case Unknown:
		add(RiskUnknown, "whether this host keeps the vTPM state is unknown (KEEP-TPM-STATE)")
	}
	b.CertsRemedy = CertRemedyOf(b.Certs, b.NVRAMKept)
	if b.Certs == CertsNoNVRAM {
		b.NVRAMKept = "" // nothing to keep
		add(RiskLow, "no UEFI NVRAM (BIOS guest): nothing is measured into PCR 7 from variables")
		return finish(b, worst)
	}
	switch {
	case b.NVRAMKept == No && b.Certs == CertsNoKeys:
		add(RiskMedium, "this host recreates the NVRAM from the template on stop/start and hard reboot (NVRAM-KEPT); it enrols no Secure Boot keys, so PCR 7 stays the same, but boot entries and variables set inside the guest are lost")
	case b.NVRAMKept == No:
		add(RiskHigh, "this host recreates the NVRAM from the template on stop/start and hard reboot (NVRAM-KEPT, bug 2131730): db/dbx/KEK updates Windows applied are lost and PCR 7 changes")
	case b.NVRAMKept == Unknown:
		add(RiskUnknown, "whether this host keeps the NVRAM is unknown (NVRAM-KEPT)")
	}
	switch b.Certs {
	case CertsUnreadable:
		add(RiskUnknown, "NVRAM unreadable: "+b.NVRAMError)
	case CertsNoKeys:
		add(RiskLow, "the NVRAM enrols no Secure Boot keys (setup mode): BitLocker does not bind to PCR 7")
	case Certs2011, CertsPartial:
		add(RiskMedium, lacking(b.Missing))
	case CertsOther:
		add(RiskLow, "the NVRAM enrols no Microsoft certificate (the site's own keys): Windows' certificate update does not apply")
	}
	return finish(b, worst)
}

// lacking says what a missing 2023 certificate costs and how it gets
// there: the KEK only offline on the host (Windows cannot add it), db
// also by an update signed by a KEK the NVRAM enrols. Either changes PCR 7.
func lacking(missing []string) string {
	why := "db/KEK lack the 2023 certificates (" + strings.Join(missing, ", ") + "): "
	if MissesKEK2023(missing) {
		return why + "Windows cannot add the KEK itself (a KEK update must be signed by the platform key, here the firmware distribution's, which Microsoft's signed KEK updates do not cover), " +
			"so the guest cannot take future db/dbx updates until the KEK is added offline on the host; adding the certificates changes PCR 7"
	}
	return why + "only db updates signed by a KEK the NVRAM enrols apply (Windows' own, or added offline on the host); either changes db, and PCR 7 with it"
}

// MissesKEK2023: missing (GuestBitLocker.Missing) names the KEK 2K CA 2023.
func MissesKEK2023(missing []string) bool {
	for _, m := range missing {
		if m == missingKEK {
			return true
		}
	}
	return false
}

func finish(b *GuestBitLocker, worst Risk) *GuestBitLocker {
	b.Risk = worst
	if worst == RiskLow && b.Certs == Certs2023 {
		b.Reasons = append(b.Reasons, "TPM state and NVRAM survive, and the 2023 certificates are enrolled")
	}
	if len(b.Reasons) == 0 {
		b.Reasons = []string{"TPM state and NVRAM survive"}
	}
	return b
}

func orUnknown(s TriState) TriState {
	if s == "" {
		return Unknown
	}
	return s
}

// nvramKept is NVRAM-KEPT's verdict: kept where the installed Nova does
// not carry bug 2131730.
func nvramKept(f *Facts) TriState {
	e := byRelease(f.Release, bugByID(f.Bugs, BugNVRAMRecreated))
	return triOf(!e.Carried, e.Known)
}

// guestsBitLocker: each vTPM guest's view, in the order of f.Guests.
func guestsBitLocker(f *Facts) []*GuestBitLocker {
	tpm := Unknown
	if k, _ := keepState(f); k != nil {
		tpm = k.Kept
	}
	nv := nvramKept(f)
	out := make([]*GuestBitLocker, len(f.Guests))
	for i, g := range f.Guests {
		out[i] = assessBitLocker(f.GuestNVRAM[g.UUID], tpm, nv)
	}
	return out
}

// checkBitLocker lists the guests by risk; names only here and in the
// JSON, never in metrics.
func checkBitLocker(f *Facts) []Check {
	const id = "BITLOCKER-RISK"
	if !f.Libvirt.reachable() {
		return one(id, Skip, "libvirt not reachable: no guests to judge", "")
	}
	if len(f.Guests) == 0 {
		return one(id, Pass, "no vTPM guests defined here", "")
	}
	by := map[Risk][]string{}
	for i, b := range guestsBitLocker(f) {
		by[b.Risk] = append(by[b.Risk], fmt.Sprintf("%s (%s)", f.Guests[i].Name, strings.Join(b.Reasons, "; ")))
	}
	if len(by[RiskLow]) == len(f.Guests) {
		return one(id, Pass, fmt.Sprintf("%d vTPM guest(s), all at low BitLocker-recovery risk", len(f.Guests)), "")
	}
	var parts []string
	for _, l := range RiskLevels[:3] {
		if n := len(by[l]); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s: %s", n, l, strings.Join(by[l], ", ")))
		}
	}
	return one(id, Warn, "BitLocker-recovery risk of the vTPM guests: "+strings.Join(parts, "; "),
		"high: update Nova (KEEP-TPM-STATE, NVRAM-KEPT) and until then suspend BitLocker inside the guest (manage-bde -protectors -disable C: -RebootCount 1) before any stop/start or hard reboot; "+
			"medium: where db/KEK lack 2023 certificates, escrow the recovery key or suspend BitLocker, stop the guest and add them to its NVRAM on this host ("+f.words().Command(advice.SecureBootUpdate)+"; Windows cannot add the KEK itself); "+
			"unknown: run host check where the Nova code and the NVRAM files are readable")
}
