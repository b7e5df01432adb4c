package secureboot

import (
	"context"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// TestStatusHost: each UEFI guest of a host, with what its store
// enrols and what to do, by the host's Nova: 2026.1 keeps NVRAM (update
// each guest), zed recreates it (the template), 2025.1 without its code
// cannot tell.
func TestStatusHost(t *testing.T) {
	for _, c := range []struct {
		rel    nova.Release
		kept   hostcheck.TriState
		remedy hostcheck.CertRemedy
		says   string
	}{
		{nova.Gazpacho, hostcheck.Yes, hostcheck.CertRemedyUpdateNVRAM, "add the 4 missing 2023 certificate(s)"},
		{nova.Zed, hostcheck.No, hostcheck.CertRemedyPackageUpdate, "Debian's ovmf 2026.08 (forky) is the first whose template enrols them"},
		{nova.Epoxy, hostcheck.Unknown, hostcheck.CertRemedyUnknown, "keeps it from 31.3.0, 32.2.0, 33.0.0"},
	} {
		t.Run(c.rel.String(), func(t *testing.T) {
			h := newHost(t, c.rel)
			h.guest(t, "instance-0000000a", uuidA, hostcheck.DomainShutOff, store2011(t))
			h.guest(t, "instance-0000000b", uuidB, hostcheck.DomainRunning, store2023(t))
			h.guest(t, "instance-0000000c", uuidC, hostcheck.DomainShutOff, storeSetupMode(t))
			h.guest(t, "instance-0000000d", "dddddddd-0000-4000-8000-000000000004", hostcheck.DomainShutOff, []byte("not a variable store"))
			h.guest(t, "instance-0000000e", "eeeeeeee-0000-4000-8000-000000000005", hostcheck.DomainRunning, nil)
			h.guest(t, "instance-0000000f", "ffffffff-0000-4000-8000-000000000006", hostcheck.DomainShutOff, storeFull(t))
			h.lv.Saved["dddddddd-0000-4000-8000-000000000004"] = true
			res, err := Status(context.Background(), StatusRequest{Host: h.options(), Connect: connect(h.lv), Now: now})
			if err != nil {
				t.Fatal(err)
			}
			if res.Host != "cmp1" || res.NovaRelease != c.rel || res.NVRAMKept != c.kept || res.Source != "libvirt test:///cmp1" || res.Summary.BIOSGuests != 1 || len(res.Guests) != 5 {
				t.Fatalf("host %q %s kept %s from %q, %d guests, %d BIOS", res.Host, res.NovaRelease, res.NVRAMKept, res.Source, len(res.Guests), res.Summary.BIOSGuests)
			}
			a := res.Guests[0]
			if a.Domain != "instance-0000000a" || a.UUID != uuidA || a.ServerName != "server instance-0000000a" || a.State != hostcheck.DomainShutOff ||
				a.VTPM == nil || !*a.VTPM || a.SecureBoot == nil || !*a.SecureBoot || a.NVRAM != "/var/lib/libvirt/qemu/nvram/instance-0000000a_VARS.fd" || a.NVRAMKept != c.kept {
				t.Errorf("guest a: %+v", a)
			}
			if a.Certs != hostcheck.Certs2011 || a.Remedy != c.remedy || !strings.Contains(a.Detail, c.says) || len(a.WouldAdd) != 4 || len(a.Missing) != 3 {
				t.Errorf("guest a: %s %s %q, would add %d, missing %v", a.Certs, a.Remedy, a.Detail, len(a.WouldAdd), a.Missing)
			}
			if a.PK == nil || a.PK.Subject != "Test Platform Key" || a.PK.Owner != pkOwner || a.DBXEntries != 1 {
				t.Errorf("guest a: PK %+v, dbx %d", a.PK, a.DBXEntries)
			}
			if len(a.KEK) != 1 || a.KEK[0].Subject != "Microsoft Corporation KEK CA 2011" || !a.KEK[0].Expired ||
				len(a.DB) != 2 || a.DB[0].Subject != "Microsoft Windows Production PCA 2011" || a.DB[0].Expired || a.DB[0].NotAfter.Format("2006-01-02") != "2026-10-19" {
				t.Errorf("guest a: KEK %+v, db %+v", a.KEK, a.DB)
			}
			for i, w := range []struct {
				certs  hostcheck.Certs
				remedy hostcheck.CertRemedy
				says   string
			}{
				{hostcheck.Certs2023, hostcheck.CertRemedyNone, "the 2023 certificates are enrolled"},
				{hostcheck.CertsNoKeys, hostcheck.CertRemedyNone, "no PK (setup mode)"},
				{hostcheck.CertsUnreadable, hostcheck.CertRemedyUnknown, "could not be read"},
			} {
				g := res.Guests[i+1]
				if g.Certs != w.certs || g.Remedy != w.remedy || !strings.Contains(g.Detail, w.says) {
					t.Errorf("%s: %s %s %q, want %s %s %q", g.Domain, g.Certs, g.Remedy, g.Detail, w.certs, w.remedy, w.says)
				}
			}
			if d := res.Guests[3]; d.Error == "" || !d.ManagedSave {
				t.Errorf("guest d: error %q, saved %v", d.Error, d.ManagedSave)
			}
			if f := res.Guests[4]; c.kept == hostcheck.Yes && (f.Remedy != hostcheck.CertRemedyBlocked || !strings.Contains(f.Detail, "bytes free")) {
				t.Errorf("full store: %s %q", f.Remedy, f.Detail)
			}
			if n := res.Summary.ByCerts[hostcheck.Certs2011]; n != 2 || res.Summary.Guests != 5 || res.Summary.ByRemedy[hostcheck.CertRemedyNone] != 2 {
				t.Errorf("summary %+v", res.Summary)
			}
		})
	}
}

// TestStatusFile: one file alone, its host not asked.
func TestStatusFile(t *testing.T) {
	p := writeFile(t, t.TempDir(), "x_VARS.fd", store2011(t))
	res, err := Status(context.Background(), StatusRequest{NVRAM: p, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	g := res.Guests[0]
	if len(res.Guests) != 1 || res.Source != p || res.Host != "" || res.NVRAMKept != "" || g.NVRAM != p || g.Remedy != hostcheck.CertRemedyUpdateNVRAM || g.Certs != hostcheck.Certs2011 {
		t.Fatalf("%+v", res)
	}
	res, err = Status(context.Background(), StatusRequest{NVRAM: p + ".missing", Now: now})
	if err != nil || res.Guests[0].Certs != hostcheck.CertsUnreadable || !strings.Contains(res.Guests[0].Error, "no such file") {
		t.Fatalf("a missing file: %+v %v", res.Guests, err)
	}
}

// TestStatusMountedTree: a mounted host's tree whose libvirt is not
// asked: the persistent definitions below it, states unknown; update
// refuses to write there.
func TestStatusMountedTree(t *testing.T) {
	h := newHost(t, nova.Gazpacho)
	h.guest(t, "instance-0000000a", uuidA, hostcheck.DomainShutOff, store2011(t))
	writeFile(t, h.root, "etc/libvirt/qemu/instance-0000000a.xml", []byte(h.lv.Domains[0]))
	o := h.options()
	o.LibvirtURI = ""
	res, err := Status(context.Background(), StatusRequest{Host: o, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Guests) != 1 || res.Guests[0].State != "" || res.Guests[0].Certs != hostcheck.Certs2011 || !strings.Contains(res.Source, "/etc/libvirt/qemu") {
		t.Fatalf("%+v", res)
	}
	if _, err := Update(context.Background(), UpdateRequest{AllStopped: true, Host: o, Now: now}); err == nil || !strings.Contains(err.Error(), "not asked on a mounted tree") {
		t.Fatalf("update on a mounted tree: %v", err)
	}
}

// TestStatusTable: the table's columns are the JSON's keys; the host's
// verdict and the counts follow.
func TestStatusTable(t *testing.T) {
	h := newHost(t, nova.Gazpacho)
	h.guest(t, "instance-0000000a", uuidA, hostcheck.DomainShutOff, store2011(t))
	res, err := Status(context.Background(), StatusRequest{Host: h.options(), Connect: connect(h.lv), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	tb := res.Table()
	if got := tb.Rows[0].Get("kek").([]string); len(got) != 1 || got[0] != "Microsoft Corporation KEK CA 2011 (expired 2026-06-24)" {
		t.Errorf("kek cell %q", got)
	}
	if !strings.Contains(strings.Join(tb.Footer, "\n"), "1 UEFI guest(s); certificates: 2011 1; remedy: update-nvram 1") {
		t.Errorf("footer %q", tb.Footer)
	}
}
