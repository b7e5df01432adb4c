package secrets

import (
	"context"
	"fmt"
	"sort"

	"github.com/vtpmctl/vtpmctl/app/inventory"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/result"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
)

// ModePlanSchema names the JSON of `secrets mode-plan`.
const ModePlanSchema = "vtpmctl.secrets-mode-plan/1"

// ModeChangeRequest selects the guests and the mode to plan for.
type ModeChangeRequest struct {
	// ServerID picks one server out of the list (empty: every vTPM guest).
	ServerID string
	// AllProjects lists every project's servers (admin); Project lists
	// one project's (admin: all_tenants with project_id), by name or ID
	// (resolved with Keystone, as every project a caller names is).
	AllProjects bool
	Project     string
	// ProjectID is Project resolved (the service sets it); the plan keeps
	// only that project's guests.
	ProjectID string
	To        nova.SecretMode
	Release   nova.ReleaseEvidence
}

// ModeChangeRow is one guest's plan.
type ModeChangeRow struct {
	// Result is the row's verdict (ModeChangeStatus).
	Result    result.Status `json:"result"`
	ServerID  string        `json:"server_id"`
	Name      string        `json:"name"`
	ProjectID string        `json:"project_id"`
	Flavor    string        `json:"flavor"`
	nova.ModeChangePlan
}

// ModeChangeResult is the plan for every selected guest.
type ModeChangeResult struct {
	Schema      string            `json:"schema"`
	NovaRelease *nova.ReleaseInfo `json:"nova_release"`
	To          nova.SecretMode   `json:"to"`
	// NoModes is the one line for a release without secret security
	// modes (then nothing is listed and Servers is empty).
	NoModes string          `json:"no_secret_security,omitempty"`
	Servers []ModeChangeRow `json:"servers"`
	// Warnings say which servers the plan could not see (their vTPM
	// undecided, so not planned).
	Warnings []string             `json:"warnings,omitempty"`
	Release  nova.ResolvedRelease `json:"-"`
}

// Unreached counts the guests that cannot end up in the target mode.
func (r *ModeChangeResult) Unreached() int {
	n := 0
	for _, s := range r.Servers {
		if !s.Verdict.Reached() {
			n++
		}
	}
	return n
}

// ModeChange settles the release, then (2026.1+) lists the flavors once
// and the servers once, and plans each guest with nova.PlanModeChange.
// Read only: nothing is resized.
func ModeChange(ctx context.Context, sess *cloud.Session, req ModeChangeRequest) (ModeChangeResult, error) {
	out := ModeChangeResult{Schema: ModePlanSchema, To: req.To, Servers: []ModeChangeRow{}}
	if !req.To.Known() {
		return out, &nova.NotFoundError{Kind: "secret security mode", Ref: string(req.To)}
	}
	cc, err := sess.Compute()
	if err != nil {
		return out, err
	}
	if out.Release, err = compute.ResolveRelease(ctx, cc, req.Release, false); err != nil {
		return out, err
	}
	rel := out.Release.Release
	out.NovaRelease = rel.Info()
	if !rel.HasSecretSecurity() {
		// the plan's own line, without listing anything
		out.NoModes = nova.PlanModeChange(nova.ModeChangeInput{Release: rel, To: req.To}).Refusal
		return out, nil
	}
	ic, err := sess.Image()
	if err != nil {
		return out, err
	}
	vc, err := compute.OptionalVolumes(sess.BlockStorage())
	if err != nil {
		return out, err
	}
	catalog, err := compute.ListFlavors(ctx, cc)
	if err != nil {
		return out, fmt.Errorf("listing flavors: %w", err)
	}
	opts := inventory.Opts{AllTenants: req.AllProjects || req.Project != "", KeepServers: true, Volumes: vc}
	if req.Project != "" && !req.AllProjects {
		ks, err := sess.Identity()
		if err != nil {
			return out, err
		}
		ids, err := cloud.ProjectIDs(ctx, ks, []string{req.Project})
		if err != nil {
			return out, err
		}
		opts.Projects = ids // that project's servers only, filtered by Nova
		req.ProjectID = ids[0]
	}
	inv, err := inventory.List(ctx, cc, ic, rel, opts)
	if err != nil {
		return out, err
	}
	out.Servers = PlanModeChanges(inv, catalog, rel, req)
	out.Warnings = modePlanWarnings(inv)
	if req.ServerID != "" && len(out.Servers) == 0 {
		return out, &nova.NotFoundError{Kind: "server", Ref: req.ServerID}
	}
	return out, nil
}

// PlanModeChanges is the pure part of ModeChange: the selected servers
// of one list, planned against one flavor list, sorted by project and name.
func PlanModeChanges(inv nova.Inventory, catalog []nova.CloudFlavor, rel nova.Release, req ModeChangeRequest) []ModeChangeRow {
	// The server list embeds the instance's own flavor (name, extra specs,
	// sizes at 2.47+): the catalog entry of that name says whether it is
	// public, and sizes it only where the list did not.
	byName := map[string]nova.CloudFlavor{}
	for _, f := range catalog {
		byName[f.Name] = f
	}
	// the list's decision per server, for modePlanImage (an index: 50,000 guests)
	decided := make(map[string]nova.VTPMGuest, inv.Guests.Len())
	for _, g := range inv.Guests.All() {
		decided[g.ServerID] = g
	}
	rows := []ModeChangeRow{}
	for id, srv := range inv.Servers {
		if req.ServerID != "" && id != req.ServerID {
			continue
		}
		if req.ProjectID != "" && srv.ProjectID != req.ProjectID {
			continue
		}
		cur, inCatalog := byName[srv.Flavor.Name]
		if !inCatalog {
			cur = nova.CloudFlavor{Flavor: srv.Flavor}
		}
		cur.Flavor = srv.Flavor // the specs the server was built with
		sized, sz := inCatalog, srv.FlavorSize
		if sz.Known {
			// the instance's own flavor: a deleted or re-created catalog
			// flavor of that name does not change what the resize compares
			cur.VCPUs, cur.RAM, cur.Disk, sized = sz.VCPUs, sz.RAM, sz.Disk, true
		}
		p := nova.PlanModeChange(nova.ModeChangeInput{Release: rel, Flavor: cur, SizeKnown: sized, AccessKnown: inCatalog,
			Ephemeral: sz.Ephemeral, VolumeBacked: srv.ImageID == "", Image: modePlanImage(srv, decided), To: req.To, Candidates: catalog})
		if p.Verdict == nova.ModeChangeNotVTPM && req.ServerID == "" {
			continue // a fleet plan lists vTPM guests only
		}
		rows = append(rows, ModeChangeRow{Result: ModeChangeStatus(p.Verdict), ServerID: id, Name: srv.Name, ProjectID: srv.ProjectID, Flavor: srv.Flavor.Name, ModeChangePlan: p})
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].ProjectID != rows[j].ProjectID {
			return rows[i].ProjectID < rows[j].ProjectID
		}
		if rows[i].Name != rows[j].Name {
			return rows[i].Name < rows[j].Name
		}
		return rows[i].ServerID < rows[j].ServerID
	})
	return rows
}

// modePlanImage is the image metadata Nova reads for the server: its boot
// volume's, else its image's; where neither can be read (2.98 showed
// the properties at boot, or the image is gone) the list's decision
// stands in, as the version and model it settled.
func modePlanImage(srv nova.Server, decided map[string]nova.VTPMGuest) nova.Image {
	switch {
	case srv.BootVolume != nil:
		return *srv.BootVolume
	case srv.Image != nil:
		return *srv.Image
	}
	if g, ok := decided[srv.ID]; ok && g.Evidence != nova.EvidenceFlavor {
		return nova.Image{Properties: map[string]string{nova.ImageTPMVersion: g.Version, nova.ImageTPMModel: g.Model}}
	}
	return nova.Image{}
}

// modePlanWarnings name the servers left out because nothing decided
// their vTPM (a vTPM guest among them gets no plan), with the volume
// list's error where that was why.
func modePlanWarnings(inv nova.Inventory) []string {
	var out []string
	for _, r := range nova.UndecidedReasons {
		n := inv.UndecidedCount(r)
		if n == 0 {
			continue
		}
		w := fmt.Sprintf("%d server(s) not planned: their vTPM is undecided (%s)", n, r)
		if r == nova.UndecidedVolumesUnreadable && inv.VolumesErr != nil {
			w += ": " + inv.VolumesErr.Error()
		}
		out = append(out, w)
	}
	return out
}
