package inventory

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/completeness"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
	"github.com/vtpmctl/vtpmctl/openstack/glance"
)

// Opts says what List lists and keeps.
type Opts struct {
	AllTenants bool // every project's servers (admin)
	// Projects, with AllTenants, narrows the list to these projects: one
	// list each, filtered by Nova (all_tenants with project_id, admin)
	// and again here (a record of another project is dropped: a Nova
	// whose policy strips the filter answers with every project's). The
	// lists are complete for these projects only (a completeness.Scope
	// gap says so). Without AllTenants it is ignored: Nova lists the
	// token's own project whatever project_id says.
	Projects []string
	// KeepServers fills Inventory.Servers (each server's metadata, image
	// and flavor): only plan verify reads it, and at 50,000 servers it is
	// most of the memory.
	KeepServers bool
	// Volumes is the block storage (Cinder v3) client, nil when the
	// catalog has none. With it one volume list (all projects' with
	// AllTenants) decides volume-backed servers from their boot volume's
	// image metadata, as Nova does; without it those servers are decided
	// by their flavor alone and, where it asks for no vTPM, counted in
	// Inventory.Undecided (nova.UndecidedNoBlockStorage); where the list
	// fails, as undecided (nova.UndecidedVolumesUnreadable), with the
	// error in Inventory.VolumesErr.
	Volumes *gophercloud.ServiceClient
	// Page, when set, is called after each server list page is decided
	// (a caller's progress: Nova does not say how many pages there are).
	Page func()
}

// List lists the images, the volumes and the servers at once, and
// decides each server page as it arrives, once the images and volumes a
// decision needs are in: what stays is one small record per server, with
// repeated strings (hosts, projects, users) and flavors shared. The
// server list runs ahead of the decisions by at most pagesAhead pages,
// so its chain of requests (each page's marker is the last one's last
// server) never waits on the images and volumes, and memory stays a few
// pages, not the fleet's.
func List(ctx context.Context, computeClient, imageClient *gophercloud.ServiceClient, rel nova.Release, opts Opts) (nova.Inventory, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	inv := nova.Inventory{Others: map[string]nova.OtherServer{}}
	var (
		imgs   = map[string]*nova.Image{}
		imgErr error
		vols   volumeIndex
		// noVols is why a volume-backed server is undecided ("": the
		// volumes were listed).
		noVols = nova.UndecidedNoBlockStorage
		volErr error
		wg     sync.WaitGroup
	)
	if imageClient != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			all, err := glance.ListImages(ctx, imageClient, glance.ImageListOpts{})
			if err != nil {
				imgErr = fmt.Errorf("listing images: %w", err)
				cancel()
				return
			}
			for _, i := range all {
				img := i.Image
				imgs[i.ID] = &img
			}
		}()
	}
	if opts.Volumes != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			vols, volErr = listVolumeIndex(ctx, opts.Volumes, opts.AllTenants, opts.scoped(), opts.KeepServers)
		}()
	}
	pages := make(chan serverPage, pagesAhead)
	go listServerPages(ctx, computeClient, rel, opts, pages)

	ready := false // images and volumes are in
	settle := func() error {
		wg.Wait()
		switch {
		case imgErr != nil:
			return imgErr
		case opts.Volumes == nil:
		case volErr == nil:
			noVols = ""
		case ctx.Err() != nil:
			return fmt.Errorf("listing volumes: %w", volErr)
		default:
			// The audits worked without Cinder before it was read: a
			// volume list the transport gave up on (5xx, 403 on
			// all_tenants, a timeout) leaves the volume-backed servers
			// undecided, with the error for the audits to warn with.
			vols, noVols = volumeIndex{}, nova.UndecidedVolumesUnreadable
			inv.VolumesErr = fmt.Errorf("listing volumes: %w", volErr)
		}
		ready = true
		return nil
	}
	if opts.KeepServers {
		inv.Servers = map[string]nova.Server{}
	}
	in := interner{}
	flavors := map[string]nova.Flavor{}
	for pg := range pages {
		if pg.err != nil {
			if err := settle(); err != nil { // the images' failure is the cause
				return nova.Inventory{}, err
			}
			return nova.Inventory{}, pg.err
		}
		if !ready {
			if err := settle(); err != nil {
				return nova.Inventory{}, err
			}
		}
		inv.ServerMicroversion = pg.microversion
		for i := range pg.servers {
			if pg.project != "" && pg.servers[i].TenantID != pg.project {
				continue // Nova ignored the filter: not this list's server
			}
			if pg.servers[i].Flavor == nil {
				inv.PartialServers++
			}
			add(&inv, &pg.servers[i], rel, imgs, vols, noVols, flavors, in, opts.KeepServers)
		}
		if opts.Page != nil {
			opts.Page()
		}
	}
	if !ready {
		if err := settle(); err != nil {
			return nova.Inventory{}, err
		}
	}
	inv.ServerGaps = serverListGaps(inv, opts.AllTenants, opts.scoped())
	return inv, nil
}

// pagesAhead is how many server pages the list may run ahead of the
// decisions (a page of 1,000 servers is about a megabyte decoded).
const pagesAhead = 2

// serverPage is one page of a server list, or the list's error (last).
type serverPage struct {
	servers      []compute.ListedServer
	project      string // the list's project ("": no filter)
	microversion string
	err          error
}

// listServerPages lists the servers (once, or once per project asked
// for) onto pages, and closes it. The first list settles the
// microversion, the newest of the ladder the release has: a pinned
// release newer than the cloud is refused with 406, and the next one
// down is tried; the other lists use it.
func listServerPages(ctx context.Context, c *gophercloud.ServiceClient, rel nova.Release, opts Opts, pages chan<- serverPage) {
	defer close(pages)
	ladder := serverListLadder(rel)
	lists := []string{""}
	if scoped := opts.scoped(); scoped != nil {
		lists = scoped
	}
	got := 0
	settled := ""
	for n, p := range lists {
		q := compute.ServerQuery{AllTenants: opts.AllTenants, ProjectID: p}
		tries := ladder
		if n > 0 {
			tries = []string{settled}
		}
		mv, err := downTheLadder(tries, func(mv string) (int, error) {
			q.Microversion = mv
			err := compute.EachServerPage(ctx, c, q, func(l []compute.ListedServer) {
				got++
				select {
				case pages <- serverPage{servers: l, project: p, microversion: mv}:
				case <-ctx.Done():
				}
			})
			return got, err
		})
		settled = mv
		if err != nil {
			if p != "" {
				err = fmt.Errorf("listing servers of project %s: %w", p, err)
			} else {
				err = fmt.Errorf("listing servers: %w", err)
			}
			select {
			case pages <- serverPage{err: err}:
			case <-ctx.Done():
			}
			return
		}
	}
}

// downTheLadder lists at each microversion of tries in turn, newest
// first, while Nova refuses it (406) before any page came: list returns
// the pages read so far and its error. It returns the microversion that
// was listed at (or failed last).
func downTheLadder(tries []string, list func(mv string) (pages int, err error)) (string, error) {
	var err error
	for i, mv := range tries {
		var got int
		got, err = list(mv)
		if err == nil || got > 0 || i == len(tries)-1 || !gophercloud.ResponseCodeIs(err, http.StatusNotAcceptable) {
			return mv, err
		}
	}
	return "", err
}

// serverListLadder is the microversions the server list is tried at,
// newest first: 2.98 (the image properties at boot), 2.69 (a down cell's
// servers as partial records), compute.ServerMicroversion (the embedded flavor).
func serverListLadder(rel nova.Release) []string {
	top := rel.MaxMicroversion()
	var out []string
	for _, mv := range []nova.Microversion{{Major: 2, Minor: 98}, {Major: 2, Minor: 69}} {
		if !top.Less(mv) {
			out = append(out, mv.String())
		}
	}
	return append(out, compute.ServerMicroversion)
}

// serverListGaps says why the listed servers cannot prove that a server
// not among them is gone.
func serverListGaps(inv nova.Inventory, allTenants bool, projects []string) completeness.Gaps {
	var gs completeness.Gaps
	if inv.ServerMicroversion == compute.ServerMicroversion {
		gs.Add(completeness.BelowCellDownSupport, "servers listed at compute API %s, below %s: the servers of a cell Nova cannot reach are left out without a word", compute.ServerMicroversion, compute.ServerCellDownMicroversion)
	}
	if inv.PartialServers > 0 {
		gs.Add(completeness.CellDown, "Nova listed %d server(s) as partial records (status UNKNOWN): a cell is not answering", inv.PartialServers)
	}
	switch {
	case !allTenants:
		gs.Add(completeness.Scope, "the servers of the token's own project only (every project's needs the admin role and all_tenants)")
	case projects != nil:
		// Complete for these projects, yet no proof that a server of a
		// secret there is gone: Nova stores a secret in the project of
		// whoever's request created it (an admin's resize) and
		// deployment-mode secrets in its service project, whatever the
		// guest's project.
		gs.Add(completeness.Scope, "the servers of project(s) %s only: a secret there may belong to another project's server", strings.Join(projects, ", "))
	}
	return gs
}

// scoped is the projects listed one by one (nil: one list, unfiltered).
func (o Opts) scoped() []string {
	if !o.AllTenants || len(o.Projects) == 0 {
		return nil
	}
	out := append([]string(nil), o.Projects...)
	sort.Strings(out)
	return slices.Compact(out)
}

// serverQuery is what a server list asks Nova for.

// flavorOf shares one nova.Flavor among the servers with the same name
// and extra specs.
func flavorOf(s *compute.ListedServer, cache map[string]nova.Flavor) nova.Flavor {
	if s.Flavor == nil {
		return nova.Flavor{}
	}
	keys := make([]string, 0, len(s.Flavor.ExtraSpecs))
	for k := range s.Flavor.ExtraSpecs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(s.Flavor.OriginalName)
	for _, k := range keys {
		fmt.Fprintf(&b, "\x00%s\x00%s", k, compute.SpecString(s.Flavor.ExtraSpecs[k]))
	}
	if f, ok := cache[b.String()]; ok {
		return f
	}
	f := nova.Flavor{Name: s.Flavor.OriginalName, ExtraSpecs: make(map[string]string, len(keys))}
	for _, k := range keys {
		f.ExtraSpecs[k] = compute.SpecString(s.Flavor.ExtraSpecs[k])
	}
	cache[b.String()] = f
	return f
}

// add decides one server and keeps what the audits read of it. The
// image properties are those Nova read at boot where they can still be
// read: the boot volume's for a volume-backed server (image ""), the
// Glance image's otherwise. noVols is why vols was not listed ("": it was).
func add(inv *nova.Inventory, s *compute.ListedServer, rel nova.Release, imgs map[string]*nova.Image, vols volumeIndex, noVols nova.Undecided,
	flavors map[string]nova.Flavor, in interner, keep bool) {
	fl := flavorOf(s, flavors)
	imgID, atBoot, shown := s.VTPMImage()
	img, known := imgs[imgID]
	var asked nova.Image
	from, undecided := nova.EvidenceImage, nova.Undecided("")
	var boot attachedVolume
	switch {
	case s.Flavor == nil:
		undecided = nova.UndecidedCellDown
	case shown:
		asked, from = nova.Image{Properties: atBoot}, nova.EvidenceInstance
		if known {
			asked.Name = img.Name
		}
	case imgID != "" && known:
		asked = *img
	case imgID != "":
		undecided = nova.UndecidedImageGone
	case noVols != "":
		undecided = noVols
	default:
		var found bool
		if boot, found = vols.bootVolume(s.ID, s.RootDevice); found {
			asked, from = *boot.props, nova.EvidenceVolume
		} else {
			undecided = nova.UndecidedNoBootVolume
		}
	}
	d := nova.Decide(fl, asked, rel)
	if keep {
		facts := nova.Server{ID: s.ID, Name: s.Name, ProjectID: in.s(s.TenantID), Status: in.s(s.Status), Host: in.s(s.Host),
			Metadata: s.Metadata, ImageID: in.s(imgID), Image: img, Flavor: fl}
		if boot.props != nil {
			facts.BootVolumeID, facts.BootVolume = boot.id, boot.props
		}
		if f := s.Flavor; f != nil && f.VCPUs > 0 && f.RAM > 0 {
			facts.FlavorSize = nova.FlavorSize{VCPUs: f.VCPUs, RAM: f.RAM, Disk: f.Disk, Ephemeral: f.Ephemeral, Known: true}
		}
		inv.Servers[s.ID] = facts
	}
	mode := d.SecretSecurity
	if mode == "" {
		mode = nova.SecretUser // every guest before 2026.1 behaves as user mode
	}
	g := nova.VTPMGuest{ServerID: s.ID, Name: s.Name, ProjectID: in.s(s.TenantID), UserID: in.s(s.UserID),
		Status: in.s(s.Status), Host: in.s(s.Host), Mode: mode, FlavorSecretSecurity: in.s(fl.ExtraSpecs[nova.FlavorTPMSecretSecurity])}
	if !d.VTPM {
		inv.Others[s.ID] = nova.OtherServer{Name: s.Name, ImageUnknown: imgID != "" && !known}
		// Decided from properties as they are now (a boot volume's, or the
		// Glance image's without 2.98's copy of what Nova read): anyone can
		// have unset them since boot, so the audits look for other evidence.
		var unconfirmed nova.Unconfirmed
		switch {
		case undecided != "":
		case from == nova.EvidenceVolume:
			unconfirmed = nova.UnconfirmedVolumeNow
		case from == nova.EvidenceImage:
			unconfirmed = nova.UnconfirmedImageNow
		default:
			return // what Nova stored at boot (2.98) decided
		}
		// its mode, had the image properties at boot asked for a vTPM
		// (before 2026.1 every guest is user mode: no Decide per server)
		if rel.HasSecretSecurity() {
			if m := nova.Decide(fl, tpmAsked, rel).SecretSecurity; m != "" {
				g.Mode = m
			}
		}
		if undecided != "" {
			inv.Undecided = append(inv.Undecided, nova.UndecidedServer{Guest: g, Reason: undecided})
		} else {
			inv.Unconfirmed = append(inv.Unconfirmed, nova.UnconfirmedServer{Guest: g, Reason: unconfirmed})
		}
		return
	}
	g.Version, g.Model, g.Evidence = in.s(d.Version), in.s(d.Model), nova.EvidenceFlavor
	if d.VersionFrom == "image" {
		g.Evidence = from
	}
	inv.Guests.Add(g)
}

// tpmAsked is image properties asking for a vTPM, to decide the mode a
// server would have had (read only: Decide does not write it).
var tpmAsked = nova.Image{Properties: map[string]string{nova.ImageTPMVersion: "2.0"}}

// interner shares one copy of each repeated string (50,000 guests name
// a few hundred projects, users and hosts).
type interner map[string]string

func (in interner) s(v string) string {
	if x, ok := in[v]; ok {
		return x
	}
	in[v] = v
	return v
}
