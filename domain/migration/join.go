package migration

import (
	"net"
	"strings"
)

// GovcTemplates are the govc VMs that are templates, skipped as the other
// sources skip them.
func GovcTemplates(govc []GovcVM) []Skipped {
	var out []Skipped
	for _, g := range govc {
		if g.Template {
			out = append(out, Skipped{Name: g.Name, Reason: "a template (govc: config.template)"})
		}
	}
	return out
}

// JoinGovc attaches govc facts to the inventory's VMs: by BIOS UUID, then
// instance UUID, then MoRef, then a unique name, never across vCenters
// when both sides name theirs. A MoRef joins only within one vCenter: the
// export has one, or the govc file says which (GovcVM.VCenter). With no
// inventory (addUnmatched) govc's VMs are the inventory; otherwise an
// unmatched govc VM (a template the export skipped, say) is only named.
func JoinGovc(vms []SourceVM, govc []GovcVM, addUnmatched bool) ([]SourceVM, []string) {
	var unmatched []string
	vcenters := map[string]bool{}
	for _, v := range vms {
		vcenters[hostOf(v.VCenter)] = true
	}
	for _, g := range govc {
		if g.Template {
			continue // GovcTemplates names them
		}
		gvc := hostOf(g.VCenter)
		sameVC := func(v SourceVM) bool { return gvc == "" || v.VCenter == "" || gvc == hostOf(v.VCenter) }
		idx := -1
		for i, v := range vms {
			if !sameVC(v) {
				continue
			}
			switch {
			case g.BIOSUUID != "" && strings.EqualFold(g.BIOSUUID, v.BIOSUUID),
				g.InstanceUUID != "" && strings.EqualFold(g.InstanceUUID, v.InstanceUUID),
				g.MoRef != "" && g.MoRef == v.MoRef && (len(vcenters) == 1 || gvc != ""):
				idx = i
			}
			if idx >= 0 {
				break
			}
		}
		if idx < 0 {
			var same []int
			for i, v := range vms {
				if v.Name == g.Name && sameVC(v) {
					same = append(same, i)
				}
			}
			if len(same) == 1 {
				idx = same[0]
			}
		}
		if idx < 0 && !addUnmatched {
			unmatched = append(unmatched, g.Name)
			continue
		}
		if idx < 0 {
			vms = append(vms, SourceVM{Name: g.Name, VCenter: g.VCenter, MoRef: g.MoRef, BIOSUUID: g.BIOSUUID, InstanceUUID: g.InstanceUUID, VTPM: "unknown"})
			idx = len(vms) - 1
		}
		v := &vms[idx]
		if v.VTPM == "unknown" || v.VTPMEvidence == "" {
			v.VTPM, v.VTPMEvidence = yesNo(g.VTPM), "govc: "+g.Evidence
		}
		fill := func(dst *string, src string) {
			if *dst == "" {
				*dst = src
			}
		}
		fill(&v.Firmware, g.Firmware)
		fill(&v.GuestID, g.GuestID)
		fill(&v.OSConfig, g.GuestFull)
		if v.SecureBoot == nil {
			v.SecureBoot = g.SecureBoot
		}
		if v.VCPUs == 0 {
			v.VCPUs, v.MemoryMiB = g.VCPUs, g.MemoryMiB
		}
		if v.DiskMiB == 0 {
			v.DiskMiB = g.DiskMiB
		}
		if v.HWVersion == 0 {
			v.HWVersion = g.HWVersion
		}
	}
	return vms, unmatched
}

// shortHost is the first label of a vCenter's host name, whatever form the
// export wrote it in (URL, user@host:port, FQDN): it goes into image names.
func shortHost(h string) string {
	h = hostOf(h)
	if strings.Contains(h, ":") { // an IPv6 literal stays whole
		return strings.NewReplacer(":", "-").Replace(h)
	}
	if net.ParseIP(h) == nil {
		if i := strings.IndexByte(h, '.'); i > 0 {
			h = h[:i]
		}
	}
	if h == "" {
		return "vc"
	}
	return h
}

// hostOf is the host name alone of a vCenter as an export wrote it.
func hostOf(h string) string {
	if i := strings.Index(h, "://"); i >= 0 {
		h = h[i+3:]
	}
	if i := strings.IndexAny(h, "/?#"); i >= 0 {
		h = h[:i]
	}
	if i := strings.LastIndexByte(h, '@'); i >= 0 {
		h = h[i+1:]
	}
	if strings.HasPrefix(h, "[") {
		if i := strings.IndexByte(h, ']'); i > 0 {
			return strings.ToLower(h[1:i])
		}
	}
	if i := strings.IndexByte(h, ':'); i >= 0 {
		h = h[:i]
	}
	return strings.ToLower(h)
}
