package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud/scale"
)

// timeline is where a run waited: for each slice of its wall time, the
// requests in flight on average and the classes that were busy. A slice
// well under --concurrency with work left is the pipeline serializing.
func timeline(spans []fakecloud.Span, wall time.Duration, slices int) []string {
	if wall <= 0 || len(spans) == 0 {
		return nil
	}
	width := wall / time.Duration(slices)
	busy := make([]time.Duration, slices)
	byClass := make([]map[service]time.Duration, slices)
	for i := range byClass {
		byClass[i] = map[service]time.Duration{}
	}
	for _, s := range spans {
		cls := classOf(s.Route)
		for i := max(0, int(s.Start/width)); i < slices && time.Duration(i)*width < s.End; i++ {
			lo, hi := max(s.Start, time.Duration(i)*width), min(s.End, time.Duration(i+1)*width)
			if hi > lo {
				busy[i] += hi - lo
				byClass[i][cls] += hi - lo
			}
		}
	}
	out := []string{fmt.Sprintf("%8s %9s  %s", "from", "in flight", "busy classes (share of the slice's request time)")}
	for i := range busy {
		type kv struct {
			k service
			v time.Duration
		}
		var cs []kv
		for k, v := range byClass[i] {
			cs = append(cs, kv{k, v})
		}
		sort.Slice(cs, func(a, b int) bool { return cs[a].v > cs[b].v })
		var parts []string
		for _, c := range cs {
			if busy[i] > 0 && c.v*20 >= busy[i] { // 5% or more
				parts = append(parts, fmt.Sprintf("%s %d%%", c.k, int(100*c.v/busy[i])))
			}
		}
		out = append(out, fmt.Sprintf("%7.1fs %9.2f  %s", (time.Duration(i)*width).Seconds(), float64(busy[i])/float64(width), strings.Join(parts, ", ")))
	}
	return out
}

// writeTrace appends a run's requests to path as CSV: job, start and
// end in ms from the run's start, status, route.
func writeTrace(path, job string, spans []fakecloud.Span) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if st, err := f.Stat(); err == nil && st.Size() == 0 {
		fmt.Fprintln(w, "job,start_ms,end_ms,status,route")
	}
	for _, s := range spans {
		fmt.Fprintf(w, "%s,%.3f,%.3f,%d,%q\n", job, ms(s.Start), ms(s.End), s.Status, s.Route)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// criticalPath is the longest chain of requests a job cannot overlap,
// each waiting for the one before, under the model: no pool, however
// wide, finishes sooner.
//
//   - every job: the admin token, then Nova's version document (the
//     release), then the server list's pages one after another (marker
//     paging);
//   - secrets and plan verify, beside it: the project list, a project's
//     token, that project's secret pages one after another (offset
//     paging from the previous page's next link), one ACL read; the
//     longest project sets it;
//   - then one Keystone read of what both found (users, roles).
func criticalPath(job string, c *scale.Cloud, m latencyModel) time.Duration {
	cfg := c.Config()
	lat := func(route string) time.Duration { return m.of(route) }
	token := lat("POST /identity/v3/auth/tokens")
	servers := lat("GET /compute/v2.1/") + time.Duration(pages(c.NumServers(), 1000))*lat("GET /compute/v2.1/servers/detail")
	if job == "hosts" {
		hyp := time.Duration(pages(cfg.Hypervisors, 1000)) * lat("GET /compute/v2.1/os-hypervisors/detail")
		return token + max(servers, lat("GET /compute/v2.1/")+hyp)
	}
	longest := time.Duration(0)
	for p := 0; p < c.NumProjects(); p++ {
		n := c.VTPMSecrets(p)
		if cfg.Paging == "old" {
			n += cfg.OtherSecrets
		}
		chain := token + time.Duration(exactPages(n, 100))*lat("GET /key-manager/v1/secrets")
		if job == "secrets" || job == "planverify" {
			chain += lat("GET /key-manager/v1/secrets/{id}/acl")
		}
		longest = max(longest, chain)
	}
	secrets := lat("GET /identity/v3/projects") + longest
	return token + max(servers, secrets) + lat("GET /identity/v3/users")
}
