package fleet

import (
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// cellRep is a ready 2026.1 host's report in a cell ("" unknown) with a
// libtpms version.
func cellRep(cell, libtpms string) *DrainHost {
	r := rep(nova.Gazpacho, libtpms, ptr(true))
	r.Facts.Cell = cell
	return &DrainHost{Usable: true, Traits: hostTraits, Report: r}
}

// urlRep is cellRep with what host check takes from this transport_url.
func urlRep(t *testing.T, transportURL, libtpms string) *DrainHost {
	fp, err := hostcheck.CellFingerprint(transportURL)
	hosts, err2 := hostcheck.CellHosts(transportURL)
	if err != nil || err2 != nil {
		t.Fatalf("%q: %v, %v", transportURL, err, err2)
	}
	h := cellRep(fp, libtpms)
	h.Report.Facts.CellHosts = hosts
	return h
}

// TestDecideDrainCellHosts: hosts of one cell may name its RabbitMQ
// cluster differently (a subset of its nodes): one cell while a node is
// common and the vhost the same; a report without cell_hosts compares
// fingerprints.
func TestDecideDrainCellHosts(t *testing.T) {
	host := func(name string, h *DrainHost) DrainHost { h.Host = name; return *h }
	const all = "rabbit://nova:pw@ctl1:5672,nova:pw@ctl2:5672,nova:pw@ctl3:5672/"
	old := func(h *DrainHost) *DrainHost { h.Report.Facts.CellHosts = nil; return h }
	cases := []struct {
		name      string
		dest      *DrainHost
		want      DrainAction
		has, lack []string
	}{
		{"a subset of the nodes", urlRep(t, "rabbit://nova:other@CTL2/", "0.10.0"), DrainLive, []string{"1 destination(s) (b)"}, []string{"cell"}},
		{"the nodes in another order", urlRep(t, "rabbit://nova:pw@ctl3,nova:pw@ctl2,nova:pw@ctl1/", "0.10.0"), DrainLive, []string{"(b)"}, []string{"cell"}},
		{"other nodes", urlRep(t, "rabbit://nova:pw@ctl9/", "0.10.0"), DrainStays, []string{"1 in another cell"}, nil},
		{"the same nodes, another vhost", urlRep(t, "rabbit://nova:pw@ctl1,nova:pw@ctl2,nova:pw@ctl3/cell2", "0.10.0"), DrainStays, []string{"1 in another cell"}, nil},
		{"an older report, the same URL", old(urlRep(t, all, "0.10.0")), DrainLive, []string{"(b)"}, []string{"cell"}},
		{"an older report, a subset: fingerprints differ", old(urlRep(t, "rabbit://nova:pw@ctl2/", "0.10.0")), DrainStays, []string{"1 in another cell"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := host("a", urlRep(t, all, "0.10.0"))
			got, why := DecideDrain(nova.Gazpacho, DrainGuest{ServerID: drainUUID, Mode: nova.SecretHost, Version: "2.0", Model: "tpm-tis"},
				src, []DrainHost{src, host("b", c.dest)})
			if got != c.want {
				t.Fatalf("got %s %q, want %s", got, why, c.want)
			}
			reasonHas(t, why, c.has, c.lack)
		})
	}
}

// TestDecideDrainCells: Nova moves a guest only within its cell, so a
// destination whose report names another cell is no candidate; a
// destination or source without a cell stays one, and the reason says
// cells were not compared (once); libtpms is compared within the cell.
func TestDecideDrainCells(t *testing.T) {
	host := func(name string, h *DrainHost) DrainHost { h.Host = name; return *h }
	const c1, c2 = "mq-111111111111", "mq-222222222222"
	cases := []struct {
		name      string
		src       DrainHost
		others    []DrainHost
		want      DrainAction
		has, lack []string
	}{
		{"same cell", host("a", cellRep(c1, "0.10.0")), []DrainHost{host("b", cellRep(c1, "0.10.0"))},
			DrainLive, []string{"1 destination(s) (b)"}, []string{"cell"}},
		{"other cell excluded", host("a", cellRep(c1, "0.10.0")),
			[]DrainHost{host("b", cellRep(c1, "0.10.0")), host("c", cellRep(c2, "0.10.0"))},
			DrainLive, []string{"1 destination(s) (b)", "; 1 host(s) in another cell left out"}, []string{"cells not compared"}},
		{"only other cells: stays", host("a", cellRep(c1, "0.10.0")), []DrainHost{host("c", cellRep(c2, "0.10.0"))},
			DrainStays, []string{"no destination: 1 in another cell (Nova moves a guest only within its cell)"}, []string{"left out"}},
		{"a destination's cell unknown: kept with a note", host("a", cellRep(c1, "0.10.0")),
			[]DrainHost{host("b", cellRep("", "0.10.0")), host("c", cellRep(c1, "0.10.0"))},
			DrainLive, []string{"2 destination(s) (b, c)", "; cells not compared for 1 destination(s) (cell unknown)"}, nil},
		{"no destination report: kept with a note", host("a", cellRep(c1, "0.10.0")),
			[]DrainHost{{Host: "b", Usable: true, Traits: hostTraits}},
			DrainLive, []string{"1 destination(s) (b)", "; cells not compared for 1 destination(s) (cell unknown)"}, nil},
		{"the source's cell unknown: every host kept, one note", host("a", cellRep("", "0.10.0")),
			[]DrainHost{host("b", cellRep(c1, "0.10.0")), host("c", cellRep(c2, "0.10.0"))},
			DrainLive, []string{"2 destination(s) (b, c)", "; cells not compared (the source's cell is unknown)"}, []string{"for 2 destination"}},
		{"libtpms compared within the cell only", host("a", cellRep(c1, "0.10.0")),
			[]DrainHost{host("b", cellRep(c1, "0.9.6")), host("c", cellRep(c2, "0.10.0"))},
			DrainStays, []string{"no destination: 1 in another cell (Nova moves a guest only within its cell), 1 with libtpms older than the source's 0.10.0"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, why := DecideDrain(nova.Gazpacho, DrainGuest{ServerID: drainUUID, Mode: nova.SecretHost, Version: "2.0", Model: "tpm-tis"},
				c.src, append([]DrainHost{c.src}, c.others...))
			if got != c.want {
				t.Fatalf("got %s %q, want %s", got, why, c.want)
			}
			reasonHas(t, why, c.has, c.lack)
			if n := strings.Count(why, "cells not compared"); n > 1 || strings.Contains(why, "\n") {
				t.Errorf("reason %q: the cell note %d times, or more than one line", why, n)
			}
		})
	}
}

// TestDecideDrainColdCells: a cold migration's destinations are the
// same cell's too.
func TestDecideDrainColdCells(t *testing.T) {
	src := DrainHost{Host: "a", Usable: true, Traits: hostTraits, Report: rep(nova.Gazpacho, "", nil)}
	src.Report.Facts.Cell = "mq-111111111111"
	b := DrainHost{Host: "b", Usable: true, Traits: hostTraits, Report: rep(nova.Gazpacho, "", nil)}
	b.Report.Facts.Cell = "mq-222222222222"
	c := DrainHost{Host: "c", Usable: true, Traits: hostTraits}
	got, why := DecideDrain(nova.Gazpacho, DrainGuest{ServerID: drainUUID, Mode: nova.SecretUser, Version: "2.0", Model: "tpm-tis"}, src, []DrainHost{src, b, c})
	const want = "; 1 host(s) in another cell left out; cells not compared for 1 destination(s) (cell unknown)"
	if got != DrainCold || !strings.Contains(why, "cold migration to 1 destination(s) (c): the guest is stopped") || !strings.HasSuffix(why, want) {
		t.Fatalf("got %s %q, want %s with %q", got, why, DrainCold, want)
	}
}

// reasonHas fails the test when the reason lacks a phrase of has or holds
// one of lack.
func reasonHas(t *testing.T, why string, has, lack []string) {
	t.Helper()
	for _, w := range has {
		if !strings.Contains(why, w) {
			t.Errorf("reason %q\nlacks %q", why, w)
		}
	}
	for _, w := range lack {
		if strings.Contains(why, w) {
			t.Errorf("reason %q\nhas %q", why, w)
		}
	}
}
