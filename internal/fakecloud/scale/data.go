package scale

import (
	"fmt"
	"strconv"
	"strings"
)

// Object kinds, carried in every ID next to the object's index so a
// handler finds any object without a table.
const (
	kServer = iota + 1
	kSecret
	kImage
	kHypervisor
	kService
	kOtherSecret
	kProject
	kUser
	kRole
	kFlavor
	kVolume
)

// data is the generated cloud: only the project of each guest and each
// project's secret order are stored; everything else follows from an index.
type data struct {
	cfg  Config
	seed uint32
	// guestProject[i] is tenant project index of guest i; projGuests the reverse.
	guestProject []int32
	projGuests   [][]int32
	// projSecrets is each project's secrets in Barbican's (creation)
	// order: >= 0 a guest's vTPM secret, < 0 other secret -(j+1).
	projSecrets [][]int32
	perProject  int // users per tenant project
}

// Project indexes: 0 admin, 1 service, 2.. tenant projects.
const (
	pAdmin   = 0
	pService = 1
	pTenant0 = 2
)

func newData(cfg Config, seed uint32) *data {
	d := &data{cfg: cfg, seed: seed}
	d.perProject = max(1, cfg.Users/cfg.Projects)
	d.guestProject = make([]int32, cfg.Guests)
	d.projGuests = make([][]int32, cfg.Projects)
	for i := 0; i < cfg.Guests; i++ {
		p := ProjectOf(cfg, i) - pTenant0
		d.guestProject[i] = int32(p)
		d.projGuests[p] = append(d.projGuests[p], int32(i))
	}
	d.projSecrets = make([][]int32, cfg.Projects)
	for p, gs := range d.projGuests {
		n := len(gs) + cfg.OtherSecrets
		out := make([]int32, 0, n)
		other := 0
		for k, g := range gs {
			// others spread evenly between the vTPM secrets
			for other < cfg.OtherSecrets && other*len(gs) <= k*cfg.OtherSecrets {
				out = append(out, int32(-(other + 1)))
				other++
			}
			out = append(out, g)
		}
		for ; other < cfg.OtherSecrets; other++ {
			out = append(out, int32(-(other + 1)))
		}
		d.projSecrets[p] = out
	}
	// orphans: secrets named for server indexes past the last server
	for k := 0; k < cfg.Orphans && cfg.Projects > 0; k++ {
		d.projSecrets[0] = append(d.projSecrets[0], int32(cfg.Guests+cfg.Others+k))
	}
	return d
}

// ProjectOf is the Keystone project index (0 admin, 1 service, then the
// tenants) of guest i, for a Config with its defaults applied (Config()).
// A skew, as real clouds have: a fourth of the guests crowd into the
// first tenth of the projects, so some hold several secret pages.
func ProjectOf(cfg Config, i int) int {
	p := i % cfg.Projects
	if i%4 == 0 {
		p = (i / 4) % max(1, cfg.Projects/10)
	}
	return p + pTenant0
}

// NumProjects is every project Keystone lists (admin, service, tenants).
func (c *Cloud) NumProjects() int { return c.cfg.Projects + pTenant0 }

// NumServers is every server Nova lists with all_tenants.
func (c *Cloud) NumServers() int { return c.cfg.Guests + c.cfg.Others }

// VTPMSecrets is the number of vTPM-named secrets of Keystone project
// index p (0 admin, 1 service: none).
func (c *Cloud) VTPMSecrets(p int) int {
	if p < pTenant0 {
		return 0
	}
	return len(c.d.projGuests[p-pTenant0])
}

// ServerID is the UUID of server i: a guest's below Config().Guests,
// an orphan secret's instance (which Nova does not have) from
// NumServers() on.
func (c *Cloud) ServerID(i int) string { return c.d.uuid(kServer, i) }

// GuestName is the name of guest i (plan verify matches by it).
func GuestName(i int) string { return fmt.Sprintf("vm-%06d", i) }

// uuid: seed, kind, index; version-4 and variant bits set.
func (d *data) uuid(kind, i int) string {
	return fmt.Sprintf("%08x-%04x-4000-a000-%012x", d.seed, kind, i)
}

// kid is a Keystone ID: 32 hex digits.
func (d *data) kid(kind, i int) string { return fmt.Sprintf("%08x%08x%016x", d.seed, kind, i) }

func (d *data) parseUUID(s string, kind int) (int, bool) {
	pre := fmt.Sprintf("%08x-%04x-4000-a000-", d.seed, kind)
	if len(s) != 36 || !strings.HasPrefix(s, pre) {
		return 0, false
	}
	i, err := strconv.ParseUint(s[len(pre):], 16, 48)
	return int(i), err == nil
}

func (d *data) parseKID(s string, kind int) (int, bool) {
	pre := fmt.Sprintf("%08x%08x", d.seed, kind)
	if len(s) != 32 || !strings.HasPrefix(s, pre) {
		return 0, false
	}
	i, err := strconv.ParseUint(s[len(pre):], 16, 63)
	return int(i), err == nil
}

// projectID of Keystone project index p.
func (d *data) projectID(p int) string { return d.kid(kProject, p) }

func (d *data) projectName(p int) string {
	switch p {
	case pAdmin:
		return "admin"
	case pService:
		return "service"
	}
	return fmt.Sprintf("proj-%04d", p-pTenant0)
}

func (d *data) projectIndex(id string) (int, bool) {
	p, ok := d.parseKID(id, kProject)
	return p, ok && p < d.cfg.Projects+pTenant0
}

// Users: 0..Users-1 tenant users (perProject per tenant project), then
// admin, then nova (Nova's service user).
func (d *data) numUsers() int  { return d.perProject*d.cfg.Projects + 2 }
func (d *data) adminUser() int { return d.perProject * d.cfg.Projects }
func (d *data) novaUser() int  { return d.adminUser() + 1 }

func (d *data) userName(u int) string {
	switch u {
	case d.adminUser():
		return "admin"
	case d.novaUser():
		return "nova"
	}
	return fmt.Sprintf("user-%05d", u)
}

// userProject is the tenant project (Keystone index) a tenant user is a
// member of; -1 for admin and nova.
func (d *data) userProject(u int) int {
	if u >= d.adminUser() {
		return -1
	}
	return u/d.perProject + pTenant0
}

// server i: guests first, then the others.
type serverFacts struct {
	id, name, project, user, host, status string
	vtpmFlavor                            bool
	image                                 string // "" boots from a volume
}

func (d *data) server(i int) serverFacts {
	s := serverFacts{id: d.uuid(kServer, i), status: "ACTIVE"}
	if i%97 == 0 {
		s.status = "SHUTOFF"
	}
	if i < d.cfg.Guests {
		p := int(d.guestProject[i])
		s.name = GuestName(i)
		s.project = d.projectID(p + pTenant0)
		// (i/Projects), not i: i%Projects picks the project, so i%perProject
		// would give each project's guests one owner only
		s.user = d.kid(kUser, p*d.perProject+(i/d.cfg.Projects)%d.perProject)
		h := i % d.cfg.Hypervisors
		if !d.tpmHost(h) && h > 0 {
			h-- // guests live on vTPM hosts
		}
		s.host = hostName(h)
		// a third ask through the image, the rest through the flavor
		if i%3 == 0 {
			s.image = d.uuid(kImage, 0)
		} else {
			s.vtpmFlavor, s.image = true, d.uuid(kImage, 1)
		}
		if d.volumeBacked(i) {
			s.image = "" // its boot volume was made from that image
		}
		return s
	}
	j := i - d.cfg.Guests
	p := j % d.cfg.Projects
	s.name = fmt.Sprintf("other-%06d", j)
	s.project = d.projectID(p + pTenant0)
	s.user = d.kid(kUser, p*d.perProject)
	s.host = hostName(j % d.cfg.Hypervisors)
	s.image = d.uuid(kImage, 1)
	if j%50 == 49 {
		s.image = d.uuid(kImage, 1<<20) // deleted: not in Glance
	}
	if d.volumeBacked(i) {
		s.image = ""
	}
	return s
}

func hostName(h int) string { return fmt.Sprintf("cmp-%05d", h) }

// tpmHost: one host in ten has no swtpm (no TPM traits).
func (d *data) tpmHost(h int) bool { return h%10 != 9 }
