// Command scalebench runs the real vtpmctl binary against a synthetic
// OpenStack (internal/fakecloud/scale, served by internal/fakecloud) of
// G vTPM guests in P projects on H hypervisors and reports, per job: requests against the job's request
// floor (the fewest requests that can answer it), peak RSS of the child,
// TCP connections, the most requests in flight, wall time and any
// request the cloud does not serve; and the Cinder volume lists against
// their floor (-volume-backed: fewer than the floor means volume-backed
// servers were decided without their boot volumes, i.e. missed). One markdown table on stdout; exit 1
// if a run failed or made an unexpected request. `make bench` runs it.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud/scale"
)

type options struct {
	cfg      scale.Config
	bin      string
	runs     []string
	planVMs  int
	routes   bool
	extra    string
	parallel int
	serve    bool
	latency  latencyModel
	trace    string // CSV of every request, per job
	timeline bool
	capacity int
	cacheMB  int
	want     map[string]float64 // job -> fewest requests in flight on average
	maxRSS   float64
}

func main() {
	var o options
	var runs string
	flag.IntVar(&o.cfg.Guests, "guests", 2000, "vTPM guests")
	flag.IntVar(&o.cfg.Projects, "projects", 20, "tenant projects")
	flag.IntVar(&o.cfg.Hypervisors, "hypervisors", 100, "hypervisors")
	flag.IntVar(&o.cfg.Others, "others", -1, "servers without a vTPM (-1: guests/10)")
	flag.IntVar(&o.cfg.OtherSecrets, "other-secrets", 20, "non-vTPM secrets per project")
	flag.StringVar(&o.cfg.Paging, "paging", "old", "Barbican next links: old (filter dropped, Zed…2025.1) or new (filters kept)")
	flag.StringVar(&o.cfg.Microversion, "microversion", "", "Nova's maximum microversion (default 2.93 with old paging, 2.103 with new)")
	flag.Int64Var(&o.cfg.Seed, "seed", 1, "seed of the generated IDs")
	flag.IntVar(&o.cfg.Orphans, "orphans", 0, "vTPM secrets, in the first tenant project, of instances that no longer exist")
	flag.IntVar(&o.cfg.VolumeBacked, "volume-backed", 4, "one server in N boots from a Cinder volume (0: none, and no block storage in the catalog)")
	flag.StringVar(&o.bin, "vtpmctl", "bin/vtpmctl", "binary to measure")
	flag.StringVar(&runs, "runs", "secrets,secrets-noacls,hosts,planverify", "jobs to run")
	flag.IntVar(&o.planVMs, "plan-vms", 5000, "VMs in plan verify's plan")
	flag.BoolVar(&o.routes, "routes", false, "also list each run's requests by route")
	flag.StringVar(&o.extra, "args", "", "extra global flags for vtpmctl (e.g. --timeout 120s)")
	flag.IntVar(&o.parallel, "concurrency", 8, "--concurrency of the secrets audit (the floor of connections is per this)")
	var latency string
	flag.StringVar(&latency, "latency", "", "each request's service time in the cloud: a duration (every request), \"real\" (Keystone token 300ms, Nova list page 200ms, Barbican 50ms, the rest 20ms) or class=duration,… (token, keystone, nova-list, nova, barbican, glance, cinder, placement, default)")
	flag.StringVar(&o.trace, "trace", "", "append every request (job, start, end, status, route) to this CSV file")
	flag.BoolVar(&o.timeline, "timeline", false, "print each job's requests in flight over its wall time, in twentieths")
	flag.IntVar(&o.capacity, "capacity", 0, "the cloud serves this many requests at once and answers 429 with Retry-After beyond (0: no limit)")
	flag.IntVar(&o.cacheMB, "cache-pages", 1536, "MB of encoded server and volume list pages the cloud keeps, warmed by one unmeasured hosts audit before the jobs (0: encode every page, the fake's CPU then counts against the client's)")
	var want string
	flag.StringVar(&want, "want-in-flight", "", "job=N,…: fail unless the job kept at least N requests in flight on average (needs -latency)")
	flag.Float64Var(&o.maxRSS, "max-rss-mb", 0, "fail when a job's peak RSS passes this (0: no limit)")
	flag.BoolVar(&o.serve, "serve", false, "only serve the cloud (its clouds.yaml path on stdout) until interrupted, to run vtpmctl by hand or under a profiler")
	flag.Parse()
	if o.cfg.Others < 0 {
		o.cfg.Others = o.cfg.Guests / 10
	}
	if o.cfg.Microversion == "" {
		o.cfg.Microversion = map[string]string{"old": "2.93", "new": "2.103"}[o.cfg.Paging]
	}
	o.runs = strings.Split(runs, ",")
	var err error
	if o.latency, err = parseLatency(latency); err == nil {
		o.want, err = parseWant(want, len(o.latency) > 0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "scalebench:", err)
		os.Exit(2)
	}
	ok, err := run(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scalebench:", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(1)
	}
}

type result struct {
	job              string
	requests, floor  int
	volumes          int // Cinder volume list requests
	rssMB            float64
	conns, inflight  int
	wall             time.Duration
	unexpected, exit int
	outBytes         int64
	err              string
	routes           []string
	service, crit    time.Duration // Σ modelled service time; the critical path
	pushedBack       int
	timeline         []string
}

func run(o options) (bool, error) {
	bin, err := filepath.Abs(o.bin)
	if err != nil {
		return false, err
	}
	if _, err := os.Stat(bin); err != nil {
		return false, fmt.Errorf("-vtpmctl: %v", err)
	}
	t0 := time.Now()
	// no test here: what the strict fake would fail a test for is
	// counted (Stats.Unexpected) and fails the run; requests are
	// counted, not recorded
	fc := fakecloud.Serve(fakecloud.Options{NoRecord: true, Trace: o.trace != "" || o.timeline})
	defer fc.Close()
	fc.Latency, fc.Capacity = o.latency.fake(), o.capacity
	c, err := scale.New(fc, o.cfg)
	if err != nil {
		return false, err
	}
	cfg := c.Config()
	dir, err := os.MkdirTemp("", "scalebench-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(dir)
	clouds := filepath.Join(dir, "clouds.yaml")
	yaml := fakecloud.CloudsYAML("scale", c.URL, fakecloud.Scope{ProjectName: "admin"})
	if err := os.WriteFile(clouds, []byte(yaml), 0o600); err != nil {
		return false, err
	}
	plan := filepath.Join(dir, "plan.yaml")
	matched, err := writePlan(plan, cfg, o.planVMs)
	if err != nil {
		return false, err
	}
	if o.serve {
		fmt.Printf("OS_CLIENT_CONFIG_FILE=%s OS_CLOUD=scale\n", clouds)
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		<-sig
		st := c.Stats()
		fmt.Fprintf(os.Stderr, "%d requests, %d connections, %d unexpected\n%s\n", st.Requests, st.Connections, st.NUnexpected, strings.Join(st.Routes(), "\n"))
		return st.NUnexpected == 0, nil
	}
	if o.cacheMB > 0 && !o.serve {
		// the fake's encoding of a page is a real Nova's time on its own
		// host: warm the pages once, unmeasured
		c.CachePages(o.cacheMB << 20)
		if r := runOne(bin, clouds, o.extra, []string{"hosts", "audit", "-f", "json"}); r.exit > 1 || r.exit < 0 {
			return false, fmt.Errorf("warming the list pages: hosts audit exited %d: %s", r.exit, r.err)
		}
	}
	vb, vbTPM := c.VolumeBackedGuests()
	fmt.Fprintf(os.Stderr, "scalebench: %d guests (%d volume-backed, %d of them with the vTPM from the volume), %d other servers, %d volumes, %d projects, %d hypervisors, paging %s, Nova %s (cloud ready in %s)\n",
		cfg.Guests, vb, vbTPM, cfg.Others, c.NumVolumes(), cfg.Projects, cfg.Hypervisors, cfg.Paging, cfg.Microversion, time.Since(t0).Round(time.Millisecond))

	var results []result
	allOK := true
	for _, job := range o.runs {
		var args []string
		switch job {
		case "secrets":
			args = []string{"secrets", "audit", "--all-projects", "--concurrency", fmt.Sprint(o.parallel), "-f", "json"}
		case "secrets-noacls":
			args = []string{"secrets", "audit", "--all-projects", "--no-acls", "--concurrency", fmt.Sprint(o.parallel), "-f", "json"}
		case "hosts":
			args = []string{"hosts", "audit", "-f", "json"}
		case "planverify":
			args = []string{"plan", "verify", plan, "-f", "json"}
		default:
			return false, fmt.Errorf("-runs: unknown job %q (secrets, secrets-noacls, hosts, planverify)", job)
		}
		c.Reset()
		r := runOne(bin, clouds, o.extra, args)
		r.job = job
		st := c.Stats()
		r.requests, r.conns, r.inflight, r.unexpected = st.Requests, st.Connections, st.MaxInFlight, st.NUnexpected
		r.volumes = st.ByRoute["GET /volume/v3/{id}/volumes/detail"]
		r.floor = floor(job, c, matched)
		r.service, r.crit, r.pushedBack = o.latency.serviceTime(st.ByRoute), criticalPath(job, c, o.latency), st.PushedBack
		if o.timeline {
			r.timeline = timeline(c.Trace(), r.wall, 20)
		}
		if o.trace != "" {
			if err := writeTrace(o.trace, job, c.Trace()); err != nil {
				return false, fmt.Errorf("-trace: %v", err)
			}
		}
		if o.routes {
			r.routes = append(st.Routes(), "", "new TCP connections by their first request:")
			r.routes = append(r.routes, st.ConnRoutes()...)
		}
		for _, u := range st.Unexpected {
			fmt.Fprintf(os.Stderr, "scalebench: %s: unexpected request %s\n", job, u)
		}
		// 0 all passed, 1 findings (the cloud has some on purpose); any
		// other status, no output or an unexpected request fails the run.
		if r.exit > 1 || r.exit < 0 || r.outBytes == 0 || r.unexpected > 0 {
			allOK = false
			fmt.Fprintf(os.Stderr, "scalebench: %s failed: exit %d, %d bytes out, %d unexpected: %s\n", job, r.exit, r.outBytes, r.unexpected, r.err)
		}
		results = append(results, r)
		fmt.Fprintf(os.Stderr, "scalebench: %s done in %s\n", job, r.wall.Round(time.Millisecond))
	}
	fmt.Printf("| guests | projects | hypervisors | paging | job | requests | floor | ratio | volume lists (floor) | peak RSS MB | TCP conns | max in flight | wall | unexpected | exit |\n")
	fmt.Printf("|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range results {
		fmt.Printf("| %d | %d | %d | %s | %s | %d | %d | %.2f | %d (%d) | %.0f | %d | %d | %.1fs | %d | %d |\n", cfg.Guests, cfg.Projects, cfg.Hypervisors, cfg.Paging,
			r.job, r.requests, r.floor, float64(r.requests)/float64(max(1, r.floor)), r.volumes, volumeFloor(c), r.rssMB, r.conns, r.inflight, r.wall.Seconds(), r.unexpected, r.exit)
	}
	if len(o.latency) > 0 {
		// in flight: the requests' modelled service time over the wall,
		// the requests a pool kept busy on average; bound: what a pool of
		// --concurrency slots, always full, and the longest chain of
		// requests that cannot overlap allow together.
		fmt.Printf("\nlatency %s, --concurrency %d, cloud capacity %s\n\n", o.latency, o.parallel, capacityText(o.capacity))
		fmt.Printf("| job | requests | service time | in flight (avg) | critical path | bound: critical + service ÷ %d | wall | wall ÷ bound | 429s |\n", o.parallel)
		fmt.Printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, r := range results {
			bound := r.crit + r.service/time.Duration(max(1, o.parallel))
			fmt.Printf("| %s | %d | %.1fs | %.2f | %.1fs | %.1fs | %.1fs | %.2f | %d |\n", r.job, r.requests, r.service.Seconds(),
				float64(r.service)/float64(max(1, r.wall)), r.crit.Seconds(), bound.Seconds(), r.wall.Seconds(), float64(r.wall)/float64(max(1, bound)), r.pushedBack)
		}
	}
	for _, r := range results {
		inFlight := float64(r.service) / float64(max(1, r.wall))
		if w, ok := o.want[r.job]; ok && inFlight < w {
			allOK = false
			fmt.Fprintf(os.Stderr, "scalebench: %s kept %.2f requests in flight on average, want at least %.1f\n", r.job, inFlight, w)
		}
		if o.maxRSS > 0 && r.rssMB > o.maxRSS {
			allOK = false
			fmt.Fprintf(os.Stderr, "scalebench: %s peaked at %.0f MB RSS, want at most %.0f\n", r.job, r.rssMB, o.maxRSS)
		}
	}
	for _, r := range results {
		if len(r.timeline) > 0 {
			fmt.Printf("\n%s over its %.1fs:\n\n```\n%s\n```\n", r.job, r.wall.Seconds(), strings.Join(r.timeline, "\n"))
		}
	}
	for _, r := range results {
		if len(r.routes) > 0 {
			fmt.Printf("\n%s requests by route:\n\n```\n%s\n```\n", r.job, strings.Join(r.routes, "\n"))
		}
	}
	return allOK, nil
}

// countWriter counts the bytes of the child's output (not kept).
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

func runOne(bin, clouds, extra string, args []string) result {
	full := append(append([]string{"--os-cloud", "scale"}, strings.Fields(extra)...), args...)
	cmd := exec.Command(bin, full...)
	cmd.Env = append(os.Environ(), "OS_CLIENT_CONFIG_FILE="+clouds, "OS_CLOUD=")
	out := &countWriter{}
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = out, &tail{b: &errb}
	t0 := time.Now()
	err := cmd.Start()
	var peak peakRSS
	if err == nil {
		stop := peak.watch(cmd.Process.Pid)
		err = cmd.Wait()
		stop()
	}
	r := result{wall: time.Since(t0), outBytes: out.n, err: strings.TrimSpace(errb.String())}
	if cmd.ProcessState == nil {
		r.exit, r.err = -1, err.Error()
		return r
	}
	r.exit = cmd.ProcessState.ExitCode()
	r.rssMB = float64(peak.kb()) / 1024
	return r
}

// peakRSS is a child's own peak resident set: the high-water mark of its
// memory since exec (VmHWM), read every few milliseconds until it exits.
// Not wait4's ru_maxrss: Go starts a child with vfork, which shares the
// parent's memory, and Linux counts that memory's high-water mark into
// the child's maxrss at exec. So every job reported at least this
// process's size (the synthetic cloud and its cached pages: 270 MB at
// 50,000 guests, whatever the job).
type peakRSS struct {
	mu  sync.Mutex
	max int64
}

func (p *peakRSS) kb() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.max
}

func (p *peakRSS) watch(pid int) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		path := fmt.Sprintf("/proc/%d/status", pid)
		for {
			if kb, ok := vmHWM(path); ok {
				p.mu.Lock()
				p.max = max(p.max, kb)
				p.mu.Unlock()
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func() { close(done); <-finished }
}

// vmHWM reads "VmHWM: N kB" from a /proc status file (false once the
// process has exited: a zombie's has none).
func vmHWM(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				n, err := strconv.ParseInt(f[0], 10, 64)
				return n, err == nil
			}
		}
	}
	return 0, false
}

// tail keeps the last 4 KiB of stderr.
type tail struct{ b *bytes.Buffer }

func (t *tail) Write(p []byte) (int, error) {
	t.b.Write(p)
	if t.b.Len() > 8192 {
		rest := t.b.Bytes()[t.b.Len()-4096:]
		nb := bytes.NewBuffer(append([]byte(nil), rest...))
		*t.b = *nb
	}
	return len(p), nil
}

var _ io.Writer = (*tail)(nil)

// pages is how many list requests n objects cost at limit a page on an
// API that sends a next link with every full page (Nova, Glance): a
// multiple of the limit costs one empty page more.
func pages(n, limit int) int { return n/limit + 1 }

// exactPages: Barbican sends next only while offset+limit < total.
func exactPages(n, limit int) int { return max(1, (n+limit-1)/limit) }

// floor is the fewest requests a job needs on this cloud.
func floor(job string, c *scale.Cloud, matched map[int]bool) int {
	cfg := c.Config()
	// every job: one token, the compute version document (release),
	// the server list (1,000 a page, Nova's max_limit), the image list
	// and, with volume-backed servers, one volume list (every job lists
	// all tenants' servers as admin).
	base := 1 + 1 + pages(c.NumServers(), 1000) + pages(cfg.Images, 1000) + volumeFloor(c)
	// fleet: the hypervisor list (1,000 a page) and one Placement list
	// per trait the audit reads.
	fleet := pages(cfg.Hypervisors, 1000) + len(fleet.TPMTraits)
	switch job {
	case "secrets", "secrets-noacls":
		// + project list + per project: a token (not the admin project's
		// own) and its vTPM secrets 100 a page + one ACL GET per secret
		// (with ACLs) + one user list + one role-assignment list.
		n := base + 1 + 1 + 1
		for p := 0; p < c.NumProjects(); p++ {
			if p > 0 {
				n++
			}
			n += exactPages(c.VTPMSecrets(p), 100)
			if job == "secrets" {
				n += c.VTPMSecrets(p)
			}
		}
		return n
	case "hosts":
		return base + fleet
	case "planverify":
		// + fleet + project list + per project of a matched guest: a
		// token and its secret pages + one ACL GET per matched guest's
		// secret + one user list + one role-assignment list.
		n := base + fleet + 1 + 1 + 1
		perProject := map[int]int{}
		for g := range matched {
			perProject[scale.ProjectOf(cfg, g)]++
		}
		for p, k := range perProject {
			n += 1 + exactPages(c.VTPMSecrets(p), 100) + k
		}
		return n
	}
	return 0
}

// volumeFloor is one all-tenants volume list (1,000 a page, Cinder's
// osapi_max_limit, a next link on every full page), or none without
// block storage: what deciding the volume-backed servers costs.
func volumeFloor(c *scale.Cloud) int {
	if c.Config().VolumeBacked == 0 {
		return 0
	}
	return pages(c.NumVolumes(), 1000)
}

// writePlan writes a plan of up to n VMs, each named as a guest, and
// returns the guests it names. A prime stride spreads them over every
// project (an even stride would alias with the projects' round robin).
func writePlan(path string, cfg scale.Config, n int) (map[int]bool, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b strings.Builder
	b.WriteString("version: 1\nimages: []\nflavors: []\nvms:\n")
	matched := map[int]bool{}
	n = min(n, cfg.Guests)
	stride := 7919
	for cfg.Guests%stride == 0 {
		stride += 2
	}
	for k := 0; k < n; k++ {
		g := k * stride % cfg.Guests
		matched[g] = true
		flavor, image := "vtpm.crb", "plain"
		if g%3 == 0 {
			flavor, image = "m1.small", "win11-vtpm"
		}
		fmt.Fprintf(&b, "- name: %s\n  guest_os: windows2022srvNext_64Guest\n  firmware: efi\n  secure_boot: \"no\"\n  source_vtpm: \"yes\"\n  vcpus: 2\n  ram: 4096\n  disk: 40\n  target_flavor: %s\n  target_image: %s\n  target_vtpm: 2.0 tpm-crb\n",
			scale.GuestName(g), flavor, image)
	}
	_, err = f.WriteString(b.String())
	return matched, err
}

func capacityText(n int) string {
	if n <= 0 {
		return "unlimited"
	}
	return fmt.Sprintf("%d requests at once (429 beyond)", n)
}

// parseWant reads -want-in-flight: job=N,…
func parseWant(spec string, latency bool) (map[string]float64, error) {
	out := map[string]float64{}
	if spec == "" {
		return out, nil
	}
	if !latency {
		return nil, fmt.Errorf("-want-in-flight needs -latency: without a service time there is nothing to keep in flight")
	}
	for _, part := range strings.Split(spec, ",") {
		job, n, ok := strings.Cut(part, "=")
		var v float64
		if _, err := fmt.Sscanf(n, "%g", &v); !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("-want-in-flight %q: want job=N,… with N > 0", spec)
		}
		out[job] = v
	}
	return out, nil
}
