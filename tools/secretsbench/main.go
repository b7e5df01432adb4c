// Command secretsbench builds the scale case of the secret audit on the
// local cloud — G vTPM guests over P projects (fake-driver servers, one
// Barbican secret each created in its owner's project) — then times
// `vtpmctl secrets audit --all-projects` and counts its requests from the
// --debug log. Run by `make bench`; -keep leaves the objects for reruns.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/flavors"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/quotasets"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/imagedata"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
	"github.com/gophercloud/gophercloud/v2/openstack/keymanager/v1/secrets"
	"github.com/gophercloud/gophercloud/v2/openstack/placement/v1/resourceproviders"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/vtpmctl/vtpmctl/internal/parallel"
)

var (
	guests   = flag.Int("guests", 2000, "vTPM guests")
	nproj    = flag.Int("projects", 20, "projects")
	vtpmctl  = flag.String("vtpmctl", "bin/vtpmctl", "binary to measure")
	keystone = "http://127.0.0.1:5000/v3"
	eo       = gophercloud.EndpointOpts{Region: "RegionOne"}
)

func must(err error, what string) {
	if err != nil {
		fmt.Fprintf(os.Stderr, "secretsbench: %s: %v\n", what, err)
		os.Exit(1)
	}
}

func client(ctx context.Context, user, pass, project string) *gophercloud.ProviderClient {
	pc, err := openstack.AuthenticatedClient(ctx, gophercloud.AuthOptions{IdentityEndpoint: keystone, Username: user, Password: pass,
		DomainName: "Default", Scope: &gophercloud.AuthScope{ProjectName: project, DomainName: "Default"}})
	must(err, "auth "+user)
	return pc
}

func main() {
	flag.Parse()
	ctx := context.Background()
	if os.Getenv("OS_CLIENT_CONFIG_FILE") == "" {
		dir := os.Getenv("DEVCLOUD_DIR")
		if dir == "" {
			dir = "/var/tmp/vtpmctl-devcloud"
		}
		os.Setenv("OS_CLIENT_CONFIG_FILE", dir+"/clouds.yaml")
	}
	admin := client(ctx, "admin", "admin", "admin")
	ks, _ := openstack.NewIdentityV3(admin, eo)
	nv, _ := openstack.NewComputeV2(admin, eo)
	gl, _ := openstack.NewImageV2(admin, eo)
	pl, _ := openstack.NewPlacementV1(admin, eo)
	pl.Microversion = "1.18"
	t0 := time.Now()

	roleID := map[string]string{}
	rp, _ := roles.List(ks, roles.ListOpts{}).AllPages(ctx)
	rs, _ := roles.ExtractRoles(rp)
	for _, r := range rs {
		roleID[r.Name] = r.ID
	}
	adminUser := firstID(users.List(ks, users.ListOpts{Name: "admin"}), users.ExtractUsers)

	// The fake compute reports no TPM trait; give it one so the scheduler
	// places vTPM flavors there (the fake driver creates no secret itself).
	fakeRP := ""
	rpp, _ := resourceproviders.List(pl, resourceproviders.ListOpts{Name: "devcloud-fake"}).AllPages(ctx)
	rps, _ := resourceproviders.ExtractResourceProviders(rpp)
	if len(rps) == 1 {
		fakeRP = rps[0].UUID
		tr, err := resourceproviders.GetTraits(ctx, pl, fakeRP).Extract()
		must(err, "fake traits")
		if !contains(tr.Traits, "COMPUTE_SECURITY_TPM_2_0") {
			_, err = pl.Put(ctx, pl.ServiceURL("resource_providers", fakeRP, "traits"), map[string]any{"resource_provider_generation": tr.ResourceProviderGeneration,
				"traits": append(tr.Traits, "COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_1_2")}, nil, &gophercloud.RequestOpts{OkCodes: []int{200}})
			must(err, "set fake traits")
		}
	}
	flv := firstID(flavors.ListDetail(nv, flavors.ListOpts{AccessType: flavors.AllAccess}), func(p pagination.Page) ([]flavors.Flavor, error) {
		all, err := flavors.ExtractFlavors(p)
		var out []flavors.Flavor
		for _, f := range all {
			if f.Name == "bench.vtpm" {
				out = append(out, f)
			}
		}
		return out, err
	})
	if flv == "" {
		pub := true
		f, err := flavors.Create(ctx, nv, flavors.CreateOpts{Name: "bench.vtpm", RAM: 64, VCPUs: 1, Disk: gophercloud.IntToPointer(1), IsPublic: &pub}).Extract()
		must(err, "flavor")
		flv = f.ID
		_, err = flavors.CreateExtraSpecs(ctx, nv, flv, flavors.ExtraSpecsOpts{"hw:tpm_version": "2.0"}).Extract()
		must(err, "flavor specs")
	}
	img := firstID(images.List(gl, images.ListOpts{Name: "bench-img"}), images.ExtractImages)
	if img == "" {
		pub := images.ImageVisibilityPublic
		i, err := images.Create(ctx, gl, images.CreateOpts{Name: "bench-img", DiskFormat: "raw", ContainerFormat: "bare", Visibility: &pub}).Extract()
		must(err, "image")
		img = i.ID
		must(imagedata.Upload(ctx, gl, img, bytes.NewReader(make([]byte, 1024))).ExtractErr(), "image data")
	}

	per := *guests / *nproj
	env := &benchEnv{ks: ks, nv: nv, roleID: roleID, adminUser: adminUser, img: img, flv: flv, t0: t0, per: per}
	errs := parallel.Do(ctx, *nproj, 4, func(ctx context.Context, i int) error { return env.setupProject(ctx, i) })
	for _, err := range errs {
		must(err, "setup")
	}
	fmt.Printf("setup: %d guests in %d projects ready after %s\n", per**nproj, *nproj, time.Since(t0).Round(time.Second))
	measure()
}

// benchEnv is what every project's setup shares.
type benchEnv struct {
	ks, nv    *gophercloud.ServiceClient
	roleID    map[string]string
	adminUser string
	img, flv  string
	t0        time.Time
	per       int
}

// setupProject makes project i with its user, roles, servers on the fake
// compute and one vTPM-named secret per server (reusing what exists).
func (b *benchEnv) setupProject(ctx context.Context, i int) error {
	ks, nv, roleID, adminUser, img, flv, t0, per := b.ks, b.nv, b.roleID, b.adminUser, b.img, b.flv, b.t0, b.per
	name := fmt.Sprintf("bench-p%02d", i+1)
	pid := firstID(projects.List(ks, projects.ListOpts{Name: name}), projects.ExtractProjects)
	if pid == "" {
		p, err := projects.Create(ctx, ks, projects.CreateOpts{Name: name, DomainID: "default"}).Extract()
		if err != nil {
			return err
		}
		pid = p.ID
	}
	uid := firstID(users.List(ks, users.ListOpts{Name: name}), users.ExtractUsers)
	if uid == "" {
		u, err := users.Create(ctx, ks, users.CreateOpts{Name: name, Password: name, DomainID: "default"}).Extract()
		if err != nil {
			return err
		}
		uid = u.ID
	}
	for _, r := range []string{"member", "creator"} {
		roles.Assign(ctx, ks, roleID[r], roles.AssignOpts{UserID: uid, ProjectID: pid})
	}
	roles.Assign(ctx, ks, roleID["admin"], roles.AssignOpts{UserID: adminUser, ProjectID: pid})
	quotasets.Update(ctx, nv, pid, quotasets.UpdateOpts{Instances: gophercloud.IntToPointer(-1), Cores: gophercloud.IntToPointer(-1), RAM: gophercloud.IntToPointer(-1)})

	u := client(ctx, name, name, name)
	uc, _ := openstack.NewComputeV2(u, eo)
	uc.Microversion = "2.37"
	km, _ := openstack.NewKeyManagerV1(u, eo)
	have := serverIDs(ctx, uc)
	for len(have) < per {
		n := per - len(have)
		if n > 50 {
			n = 50
		}
		if _, err := servers.Create(ctx, uc, servers.CreateOpts{Name: name, ImageRef: img, FlavorRef: flv, Networks: "none",
			AvailabilityZone: "fake", Min: n, Max: n}, nil).Extract(); err != nil {
			return fmt.Errorf("%s: boot: %w", name, err)
		}
		for deadline := time.Now().Add(10 * time.Minute); time.Now().Before(deadline); time.Sleep(2 * time.Second) {
			if cur := serverIDs(ctx, uc); len(cur) >= len(have)+n {
				have = cur
				break
			}
		}
	}
	existing := map[string]bool{}
	secrets.List(km, secrets.ListOpts{Name: "vTPM secret for instance %", Limit: 100}).EachPage(ctx, func(_ context.Context, p pagination.Page) (bool, error) {
		l, _ := secrets.ExtractSecrets(p)
		for _, s := range l {
			existing[strings.TrimPrefix(s.Name, "vTPM secret for instance ")] = true
		}
		return true, nil
	})
	var todo []string
	for _, id := range have {
		if !existing[id] {
			todo = append(todo, id)
		}
	}
	created := parallel.Do(ctx, len(todo), 4, func(ctx context.Context, k int) error {
		_, err := secrets.Create(ctx, km, secrets.CreateOpts{Name: "vTPM secret for instance " + todo[k], Payload: "bench", PayloadContentType: "text/plain", SecretType: secrets.PassphraseSecret}).Extract()
		return err
	})
	for _, err := range created {
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "secretsbench: %s ready: %d guests with secrets (%s)\n", name, len(have), time.Since(t0).Round(time.Second))
	return nil
}

// measure runs the audit with and without ACL reads and counts requests.
func measure() {
	for _, extra := range [][]string{{"--no-acls"}, nil} {
		args := append([]string{"--os-cloud", "devcloud-admin", "secrets", "audit", "--all-projects", "-f", "json"}, extra...)
		start := time.Now()
		out, err := exec.Command(*vtpmctl, args...).Output()
		took := time.Since(start)
		if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() == 2) {
			must(fmt.Errorf("%v: %s", err, out), "audit")
		}
		var dbg bytes.Buffer
		cmd := exec.Command(*vtpmctl, append([]string{"--debug"}, args...)...)
		cmd.Stderr = &dbg
		cmd.Run()
		fmt.Printf("audit %s: %s, %d bytes of JSON; requests: %s\n", strings.Join(extra, " "), took.Round(time.Millisecond), len(out), countRequests(dbg.Bytes()))
	}
}

var reqLine = regexp.MustCompile(`^REQ: (\w+) (http://[^/]+)(/[^?]*)`)

// countRequests groups the --debug log's requests by service and kind.
func countRequests(log []byte) string {
	counts := map[string]int{}
	total := 0
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		m := reqLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		total++
		kind := m[1] + " " + m[2]
		path := m[3]
		switch {
		case strings.HasSuffix(path, "/auth/tokens"):
			kind += " tokens"
		case strings.Contains(path, "/servers"):
			kind += " servers"
		case strings.HasSuffix(path, "/acl"):
			kind += " secret ACL"
		case strings.Contains(path, "/secrets"):
			kind += " secret list"
		case strings.Contains(path, "/users/"):
			kind += " user"
		case strings.Contains(path, "role_assignments"):
			kind += " role assignments"
		default:
			kind += " " + path
		}
		counts[kind]++
	}
	var parts []string
	for k, v := range counts {
		parts = append(parts, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(parts)
	return fmt.Sprintf("%d total (%s)", total, strings.Join(parts, ", "))
}

func serverIDs(ctx context.Context, c *gophercloud.ServiceClient) []string {
	var ids []string
	servers.ListSimple(c, servers.ListOpts{Limit: 1000}).EachPage(ctx, func(_ context.Context, p pagination.Page) (bool, error) {
		l, _ := servers.ExtractServers(p)
		for _, s := range l {
			ids = append(ids, s.ID)
		}
		return true, nil
	})
	return ids
}

func firstID[T any](pager pagination.Pager, extract func(pagination.Page) ([]T, error)) string {
	var id string
	var mu sync.Mutex
	pager.EachPage(context.Background(), func(_ context.Context, p pagination.Page) (bool, error) {
		l, err := extract(p)
		if err != nil || len(l) == 0 {
			return false, err
		}
		mu.Lock()
		id = fmt.Sprint(idOf(l[0]))
		mu.Unlock()
		return false, nil
	})
	return id
}

func idOf(v any) string {
	switch x := v.(type) {
	case users.User:
		return x.ID
	case projects.Project:
		return x.ID
	case flavors.Flavor:
		return x.ID
	case images.Image:
		return x.ID
	}
	return ""
}

func contains(l []string, v string) bool {
	for _, x := range l {
		if x == v {
			return true
		}
	}
	return false
}
