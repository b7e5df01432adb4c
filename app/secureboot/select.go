package secureboot

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
)

// planHost selects the host's domains and plans each selected file.
func planHost(ctx context.Context, req UpdateRequest, h *hostcheck.NVRAMHost, now time.Time) ([]FileUpdate, error) {
	if h.LibvirtURI == "" {
		return nil, fmt.Errorf("libvirt is not asked on a mounted tree: a guest's state cannot be known, and its file is not written")
	}
	doms, _, err := hostDomains(h, req.Connect)
	if err != nil {
		return nil, err
	}
	byUUID := map[string]*domain{}
	for _, d := range doms {
		byUUID[strings.ToLower(d.UUID)] = d
	}
	var selected []*domain
	var missing []string
	if len(req.Servers) > 0 {
		seen := map[string]bool{}
		for _, id := range req.Servers {
			id = strings.ToLower(id)
			d, ok := byUUID[id]
			switch {
			case !ok:
				missing = append(missing, id)
			case !seen[id]:
				seen[id] = true
				selected = append(selected, d)
			}
		}
		if len(missing) > 0 {
			return nil, &NotFoundError{UUIDs: missing, Host: h.Host}
		}
	} else {
		selected = doms
	}
	out := []FileUpdate{}
	for _, d := range selected {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		f := FileUpdate{Domain: d.Name, UUID: d.UUID, ServerName: d.ServerName, State: d.State, NVRAM: d.NVRAM, file: d.File, Added: []Addition{}}
		if req.AllStopped {
			if why := notSelected(d, now); why != "" {
				if !uefiDomain(d) {
					continue // a BIOS guest: nothing to say
				}
				f.Action, f.Detail = ActSkipped, why
				out = append(out, f)
				continue
			}
		}
		if r := hostRefusal(d, h); r != nil {
			f.Action, f.Refusal, f.Detail = ActRefused, r.kind, r.detail
		} else {
			plan(&f, now)
		}
		out = append(out, f)
	}
	return out, nil
}

// notSelected says why --all-stopped leaves a domain alone ("" when it
// is selected): not stopped, or its file needs nothing update adds.
func notSelected(d *domain, now time.Time) string {
	if !uefiDomain(d) || d.NVRAM == "" {
		return "no NVRAM file"
	}
	if !d.stopped() {
		if r := stateRefusal(d); r != nil {
			return r.detail
		}
	}
	g := Guest{NVRAM: d.NVRAM}
	b, _, err := readStore(d.File)
	if d.FileErr != nil {
		err = d.FileErr
	}
	inspect(context.Background(), &g, b, err, now)
	switch g.Certs {
	case hostcheck.Certs2011, hostcheck.CertsPartial:
		return ""
	}
	decide(&g, hostcheck.Yes)
	return string(g.Certs) + ": " + g.Detail
}

// hostRefusal: what this host or the domain's state refuses.
func hostRefusal(d *domain, h *hostcheck.NVRAMHost) *refusal {
	switch h.NVRAMKept {
	case hostcheck.No:
		return &refusal{RefuseNovaRecreates, fmt.Sprintf("this host's Nova (%s) recreates every guest's NVRAM from the template at each stop/start (bug 2131730; %s): the update would be lost at the next start; update Nova to %s, or give the host a template with the 2023 certificates (%s)",
			h.Release, h.Evidence, NovaKeepsNVRAM, TemplatePackage)}
	case hostcheck.Unknown, "":
		return &refusal{RefuseNovaUnknown, fmt.Sprintf("whether this host's Nova (%s) keeps a guest's NVRAM is unknown (%s): it does from %s; run where the installed Nova code is readable",
			h.Release, h.Evidence, NovaKeepsNVRAM)}
	}
	if d.NVRAM == "" {
		return &refusal{RefuseNoNVRAM, "the domain names no NVRAM file (a BIOS guest, or never started)"}
	}
	return stateRefusal(d)
}

// stateRefusal: the domain must be shut off, with no saved state.
func stateRefusal(d *domain) *refusal {
	switch {
	case d.StateErr != nil:
		return &refusal{RefuseStateUnknown, "libvirt did not tell the domain's state: " + d.StateErr.Error()}
	case d.State == hostcheck.DomainShutOff && d.Saved:
		return &refusal{RefuseManagedSave, "the domain has a saved state (Nova's suspend): its restore would write the old variables back; resume and stop it first"}
	case d.State != hostcheck.DomainShutOff:
		return &refusal{RefuseRunning, fmt.Sprintf("the domain is %s: stop it first (its QEMU holds the variables in memory and writes them back)", orUnknown(d.State))}
	}
	return nil
}

func orUnknown(s hostcheck.DomainState) string {
	if s == "" {
		return "in an unknown state"
	}
	return string(s)
}
