package secureboot

import (
	"context"
	"path/filepath"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/uefi"
)

// StatusSchema names the JSON of `host secure-boot status`.
const StatusSchema = "vtpmctl.host-secure-boot-status/1"

// StatusRequest: one variable file (NVRAM), or this host's UEFI domains
// read as host check reads the host (Host: its root, layout, release,
// libvirt).
type StatusRequest struct {
	NVRAM   string
	Host    hostcheck.Options
	Connect Connect   // nil: the real libvirt
	Now     time.Time // certificates' expiry is judged at it (zero: now)
}

// StatusResult is what each UEFI guest's variable store enrols, and what
// to do about it.
type StatusResult struct {
	Schema      string       `json:"schema"`
	Host        string       `json:"host,omitempty"`
	NovaRelease nova.Release `json:"nova_release,omitempty"`
	// NVRAMKept: does a guest's NVRAM survive stop/start on this host
	// (NVRAM-KEPT; "" for a file read alone), and from what evidence.
	NVRAMKept         hostcheck.TriState `json:"nvram_kept,omitempty"`
	NVRAMKeptEvidence string             `json:"nvram_kept_evidence,omitempty"`
	// Source: where the guests were read (libvirt's URI, the mounted
	// tree's definitions, or the one file).
	Source  string        `json:"source"`
	Guests  []Guest       `json:"guests"`
	Summary StatusSummary `json:"summary"`
}

// StatusSummary counts the guests by certificates and by remedy.
type StatusSummary struct {
	Guests   int                          `json:"guests"`
	ByCerts  map[hostcheck.Certs]int      `json:"by_certificates"`
	ByRemedy map[hostcheck.CertRemedy]int `json:"by_remedy"`
	// BIOSGuests: domains without UEFI firmware, not listed.
	BIOSGuests int `json:"bios_guests"`
}

// Guest is one UEFI guest's variable store.
type Guest struct {
	Domain string `json:"domain,omitempty"` // libvirt's name (instance-0000002a)
	// UUID: libvirt's domain UUID, which is Nova's instance UUID.
	UUID       string `json:"uuid,omitempty"`
	ServerName string `json:"server_name,omitempty"` // Nova's name, from the domain's metadata
	// State: libvirt's ("" not asked); ManagedSave: a saved state waits
	// (Nova's suspend), restored over the file at the next start.
	State       hostcheck.DomainState `json:"state,omitempty"`
	ManagedSave bool                  `json:"managed_save,omitempty"`
	// VTPM and SecureBoot: the domain has a vTPM, its firmware enforces
	// Secure Boot (nil for a file read alone).
	VTPM       *bool           `json:"vtpm,omitempty"`
	SecureBoot *bool           `json:"secure_boot,omitempty"`
	NVRAM      string          `json:"nvram,omitempty"` // the variable file, as the domain names it
	PK         *CertInfo       `json:"pk,omitempty"`    // the platform key: its owner
	KEK        []CertInfo      `json:"kek"`
	DB         []CertInfo      `json:"db"`
	DBXEntries int             `json:"dbx_entries"`
	Certs      hostcheck.Certs `json:"certificates"` // host check's class
	Missing    []string        `json:"missing_2023,omitempty"`
	// WouldAdd: what update would add to this file (Microsoft's four
	// 2023 certificates less those already there).
	WouldAdd  []Addition           `json:"would_add,omitempty"`
	NVRAMKept hostcheck.TriState   `json:"nvram_kept,omitempty"`
	Remedy    hostcheck.CertRemedy `json:"remedy"`
	Detail    string               `json:"remedy_detail"`
	Error     string               `json:"error,omitempty"` // why the file could not be read

	blocked *refusal // why update could not write the file
}

// CertInfo is one certificate of PK, KEK or db.
type CertInfo struct {
	Subject  string      `json:"subject"`
	NotAfter time.Time   `json:"not_after"`
	Expired  bool        `json:"expired"`
	Owner    uefi.GUID   `json:"owner"`
	SHA256   uefi.Digest `json:"sha256"`
}

// Addition is one certificate update adds (or would add).
type Addition struct {
	Variable string `json:"variable"` // KEK or db
	Subject  string `json:"subject"`
	SHA256   string `json:"sha256"`
}

// Status reads each UEFI guest's variable store and decides what to do.
// Read only. Its errors are the host's (GatherNVRAMHost's, typed as host
// check's) and libvirt's; a guest's unreadable file is in its row.
func Status(ctx context.Context, req StatusRequest) (StatusResult, error) {
	now := req.Now
	if now.IsZero() {
		now = time.Now()
	}
	res := StatusResult{Schema: StatusSchema, Guests: []Guest{}}
	if req.NVRAM != "" {
		res.Source = req.NVRAM
		g := Guest{NVRAM: req.NVRAM}
		file, err := filepath.EvalSymlinks(req.NVRAM)
		if err != nil {
			file = req.NVRAM
		}
		b, _, err := readStore(file)
		inspect(ctx, &g, b, err, now)
		decide(&g, "")
		res.Guests = append(res.Guests, g)
		res.count()
		return res, ctx.Err()
	}
	h, err := hostcheck.GatherNVRAMHost(ctx, req.Host)
	if err != nil {
		return res, &HostError{Err: err}
	}
	res.Host, res.NovaRelease, res.NVRAMKept, res.NVRAMKeptEvidence = h.Host, h.Release, h.NVRAMKept, h.Evidence
	doms, source, err := hostDomains(h, req.Connect)
	res.Source = source
	if err != nil {
		return res, err
	}
	for _, d := range doms {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		if !uefiDomain(d) {
			res.Summary.BIOSGuests++
			continue
		}
		g := guestOf(d)
		if d.File != "" || d.FileErr != nil {
			b, _, err := readStore(d.File)
			if d.FileErr != nil {
				err = d.FileErr
			}
			inspect(ctx, &g, b, err, now)
		} else {
			inspect(ctx, &g, nil, nil, now)
		}
		g.NVRAMKept = h.NVRAMKept
		decide(&g, h.NVRAMKept)
		res.Guests = append(res.Guests, g)
	}
	res.count()
	return res, nil
}

// uefiDomain: the domain boots UEFI firmware (an NVRAM, libvirt's
// firmware auto-selection, or a pflash loader).
func uefiDomain(d *domain) bool {
	return d.NVRAM != "" || d.OS.Firmware == "efi" || d.OS.Loader.Type == "pflash"
}

func guestOf(d *domain) Guest {
	return Guest{Domain: d.Name, UUID: d.UUID, ServerName: d.ServerName, State: d.State, ManagedSave: d.Saved,
		VTPM: ptr(len(d.TPMs) > 0), SecureBoot: ptr(d.SecureBoot()), NVRAM: d.NVRAM}
}

func (r *StatusResult) count() {
	r.Summary.Guests = len(r.Guests)
	r.Summary.ByCerts, r.Summary.ByRemedy = map[hostcheck.Certs]int{}, map[hostcheck.CertRemedy]int{}
	for _, g := range r.Guests {
		r.Summary.ByCerts[g.Certs]++
		r.Summary.ByRemedy[g.Remedy]++
	}
}

func ptr[T any](v T) *T { return &v }
