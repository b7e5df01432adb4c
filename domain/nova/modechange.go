package nova

import (
	"fmt"
	"sort"
	"strings"
)

// ModeChangeVerdict says whether a guest can reach a secret security mode.
type ModeChangeVerdict string

const (
	// ModeChangeResize: Nova allows the resize and a catalog flavor fits.
	ModeChangeResize ModeChangeVerdict = "resize"
	// ModeChangeNoFlavor: Nova allows the resize but no flavor fits yet.
	ModeChangeNoFlavor ModeChangeVerdict = "no-flavor"
	// ModeChangeAlready: the guest is in the target mode.
	ModeChangeAlready ModeChangeVerdict = "already"
	// ModeChangeRefused: Nova refuses the resize.
	ModeChangeRefused ModeChangeVerdict = "refused"
	// ModeChangeNoModes: the release has no secret security modes.
	ModeChangeNoModes ModeChangeVerdict = "no-secret-security"
	// ModeChangeNotVTPM: the server has no vTPM (or Nova refuses its request).
	ModeChangeNotVTPM ModeChangeVerdict = "not-vtpm"
)

// Reached is false when the guest cannot end up in the target mode.
func (v ModeChangeVerdict) Reached() bool {
	return v == ModeChangeResize || v == ModeChangeAlready
}

// ResizeAcrossDeployment is Nova's refusal (compute/api.py
// API._validate_vtpm_secret_security: OperationNotSupportedForVTPM, a
// NotSupported, so HTTP 400 to the resize request).
const ResizeAcrossDeployment = "Resize between 'deployment' TPM secret security and other TPM secret security modes is not supported."

// ModeChangeInput is one guest and the catalog it could be resized into.
type ModeChangeInput struct {
	Release Release
	// Flavor is the server's flavor; its sizes count only when SizeKnown
	// (the embedded flavor of a server names it, the catalog sizes it:
	// a deleted flavor leaves the sizes unknown).
	Flavor    CloudFlavor
	SizeKnown bool
	// AccessKnown: Flavor.IsPublic was read (the catalog has the flavor).
	AccessKnown bool
	// Ephemeral is the instance's ephemeral disk (GB): the libvirt driver
	// refuses a resize to less (migrate_disk_and_power_off).
	Ephemeral int
	// VolumeBacked: the root disk is a volume, so a smaller flavor disk
	// is allowed (the driver checks root_gb only for local disks).
	VolumeBacked bool
	// Image is what Nova reads as the instance's image_meta.
	Image      Image
	To         SecretMode
	Candidates []CloudFlavor
}

// ModeChangePlan is what a resize to To means for one guest.
type ModeChangePlan struct {
	From    SecretMode        `json:"from,omitempty"`
	To      SecretMode        `json:"to"`
	Verdict ModeChangeVerdict `json:"verdict"`
	// ResizeAllowed is Nova's API answer to a resize into the mode.
	ResizeAllowed bool `json:"resize_allowed"`
	// Refusal is Nova's message (or why there is nothing to plan).
	Refusal string `json:"refusal,omitempty"`
	// Flavors are the catalog flavors a resize may target, by name.
	Flavors []string `json:"target_flavors"`
	// NewFlavor is the flavor to create when none fits (ModeChangeNoFlavor).
	NewFlavor *NewFlavor `json:"-"`
	// CreateFlavor is the command that makes NewFlavor: a caller's words
	// for it (the CLI's own command line), filled by that caller.
	CreateFlavor string   `json:"create_flavor,omitempty"`
	Needs        []string `json:"needs"`
	Secret       string   `json:"secret,omitempty"`
	TPMState     string   `json:"tpm_state,omitempty"`
}

// PlanModeChange applies Nova's resize rules for a change of secret
// security mode. Nova offers no other way to change it: the mode is the
// flavor's hw:tpm_secret_security (vtpm.get_instance_tpm_secret_security).
func PlanModeChange(in ModeChangeInput) ModeChangePlan {
	p := ModeChangePlan{To: in.To, Flavors: []string{}, Needs: []string{}}
	if !in.Release.HasSecretSecurity() {
		p.Verdict = ModeChangeNoModes
		p.Refusal = fmt.Sprintf("Nova %s has no TPM secret security modes (hw:tpm_secret_security arrived in 2026.1): every vTPM guest is in mode user", in.Release.Long())
		return p
	}
	d := Decide(in.Flavor.Flavor, in.Image, in.Release)
	if !d.VTPM {
		p.Verdict, p.Refusal = ModeChangeNotVTPM, "the server has no vTPM: there is no secret to change"
		return p
	}
	p.From = d.SecretSecurity
	if p.From == in.To {
		p.Verdict, p.Refusal = ModeChangeAlready, "already in mode "+string(in.To)
		return p
	}
	if p.From == SecretDeployment || in.To == SecretDeployment {
		// API._validate_vtpm_secret_security refuses before the resize
		// starts: no secret is created, read or deleted, the guest is untouched.
		p.Verdict, p.Refusal = ModeChangeRefused, ResizeAcrossDeployment
		p.Needs = append(p.Needs, "no resize: Nova converts no secret ownership between the user and its service user; only a new server booted on a deployment-mode flavor gets a secret owned by Nova's [service_user] (set on every nova-compute), with an empty TPM")
		p.Secret = "unchanged: Nova refuses before touching it (no new secret, none deleted)"
		p.TPMState = "unchanged (the resize does not start)"
		return p
	}
	// user <-> host: allowed, the same secret and TPM state carry over.
	p.ResizeAllowed = true
	p.Flavors = fittingFlavors(in, d)
	p.Verdict = ModeChangeResize
	if len(p.Flavors) == 0 {
		p.Verdict = ModeChangeNoFlavor
		p.NewFlavor = newFlavor(in, d)
		if other := otherSpecs(in.Flavor.ExtraSpecs); len(other) > 0 {
			// flavor create writes only the vTPM specs: the rest would be lost
			p.Needs = append(p.Needs, "the new flavor also needs the current flavor's other extra specs: "+strings.Join(other, " "))
		}
	}
	p.Needs = append(p.Needs, "hosts reporting "+in.To.Trait()+" (tpm_secret_security_filter requires it)")
	// libvirt driver _get_or_create_secret_for_vtpm reads the Barbican
	// secret with the resize request's token (vtpm.get_request_context
	// takes Nova's service user only for deployment): in host mode because
	// the destination has no libvirt secret for the guest yet, in user mode
	// at every start, this one included.
	if in.To == SecretHost {
		p.Needs = append(p.Needs, "the resize caller's token can read the owner's Barbican secret (nova-compute reads it on the destination to define the persistent libvirt secret; otherwise VTPMSecretForbidden)")
	} else {
		p.Needs = append(p.Needs, "the resize caller's token can read the owner's Barbican secret (nova-compute reads it on the destination to start the guest; otherwise VTPMSecretForbidden)",
			"the owner's token at every later start (mode user keeps nothing on the host: no restart after a host reboot)")
	}
	// crypto.ensure_vtpm_secret finds system_metadata vtpm_secret_uuid and
	// creates nothing; _cleanup_resize_vtpm deletes only when the new
	// flavor drops the vTPM.
	p.Secret = "kept: the same Barbican secret (vtpm_secret_uuid), owned by the server's user; no new secret, none deleted"
	if in.To == SecretUser {
		p.Secret += "; a resize to another host leaves the persistent libvirt secret on the source host (no delete_secret on the resize paths)"
	}
	// save_and_migrate_vtpm_dir moves swtpm state with the disks;
	// _finish_migration_vtpm restores it when (version, model) is unchanged.
	p.TPMState = "kept: the swtpm state moves with the disks and is restored (same TPM version and model)"
	return p
}

// fittingFlavors are the candidates Nova would resize into without losing
// the TPM state: same (version, model) after Decide with the server's
// image (_finish_migration_vtpm deletes the state when they differ), the
// target mode, and no smaller size (the driver refuses a smaller root
// disk unless it is a volume; less vCPU or RAM is allowed by Nova but is
// not a mode change).
func fittingFlavors(in ModeChangeInput, d Decision) []string {
	out := []string{}
	for _, c := range in.Candidates {
		if c.Name == in.Flavor.Name && c.ID == in.Flavor.ID {
			continue
		}
		cd := Decide(c.Flavor, in.Image, in.Release)
		if !cd.VTPM || cd.Error != nil || cd.Version != d.Version || cd.Model != d.Model || cd.SecretSecurity != in.To {
			continue
		}
		// the libvirt driver refuses a smaller ephemeral disk always
		// (migrate_disk_and_power_off), whatever the instance boots from
		if c.Ephemeral < in.Ephemeral || in.SizeKnown && (c.VCPUs < in.Flavor.VCPUs || c.RAM < in.Flavor.RAM || !in.VolumeBacked && c.Disk < in.Flavor.Disk) {
			continue
		}
		out = append(out, c.Name)
	}
	sort.Strings(out)
	return out
}

// NewFlavor is a flavor that would fit a guest's resize into another
// secret security mode: its size (when known), access and vTPM request.
type NewFlavor struct {
	Name   string
	Source string // the guest's current flavor, by name
	// VCPUs, RAM (MB) and Disk (GB) are the current flavor's, when
	// SizeKnown (a deleted flavor leaves them unknown).
	VCPUs, RAM, Disk int
	SizeKnown        bool
	// Private: the current flavor is private, so the new one is too and
	// needs the same project access. AccessUnknown: the current flavor
	// is not in the flavor list, so whether it was private is unknown.
	Private, AccessUnknown bool
	TPMVersion, TPMModel   string
	SecretSecurity         SecretMode
	// Ephemeral is the ephemeral disk (GB) the new flavor needs: the
	// libvirt driver refuses a resize to a smaller one.
	Ephemeral int
}

func newFlavor(in ModeChangeInput, d Decision) *NewFlavor {
	f := &NewFlavor{Name: in.Flavor.Name + "-" + string(in.To), Source: in.Flavor.Name, SizeKnown: in.SizeKnown,
		Private: in.AccessKnown && !in.Flavor.IsPublic, AccessUnknown: !in.AccessKnown,
		TPMVersion: d.Version, TPMModel: d.Model, SecretSecurity: in.To, Ephemeral: in.Ephemeral}
	if in.SizeKnown {
		f.VCPUs, f.RAM, f.Disk = in.Flavor.VCPUs, in.Flavor.RAM, in.Flavor.Disk
	}
	return f
}

// otherSpecs are a flavor's extra specs outside the vTPM request, sorted.
func otherSpecs(specs map[string]string) []string {
	var out []string
	for k, v := range specs {
		if !IsVTPMFlavorKey(k) {
			out = append(out, k+"="+v)
		}
	}
	sort.Strings(out)
	return out
}
