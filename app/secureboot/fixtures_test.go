package secureboot

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/app/secureboot/sbtest"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/uefi"
)

// now is the tests' clock: after the 2011 KEK and UEFI CA expired.
var now = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

// cert is sbtest's certificate named cn.
func cert(t testing.TB, cn string) []byte { return sbtest.Cert(cn) }

var (
	pkOwner  = sbtest.PKOwner
	msOwner  = uefi.MicrosoftOwner
	x509Type = uefi.CertX509GUID
)

func sbVar(name string, vendor uefi.GUID, lists ...[]byte) uefi.Variable {
	return sbtest.SBVar(name, vendor, lists...)
}

func vars2011(testing.TB) []uefi.Variable { return sbtest.Vars2011() }
func store2011(testing.TB) []byte         { return sbtest.Store2011() }
func store2023(testing.TB) []byte         { return sbtest.Store2023() }
func storeSetupMode(testing.TB) []byte    { return sbtest.StoreSetupMode() }
func storePlain(testing.TB) []byte        { return sbtest.StorePlain() }
func storeFull(testing.TB) []byte         { return sbtest.StoreFull() }

// writeFile writes b at dir/name, mode 0600, and returns its path.
func writeFile(t testing.TB, dir, name string, b []byte) string {
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// connect is the fake libvirt as the seam.
func connect(l *sbtest.Libvirt) Connect {
	return func(uri string) (Libvirt, error) { return l.Connect(uri) }
}

func domainXML(name, uuid, server, nvram string) string {
	return sbtest.DomainXML(name, uuid, server, nvram)
}

// host is a compute host below a temp root: its nova.conf, a Nova
// release (2026.1 keeps NVRAM; zed recreates it; 2025.1 without its code
// cannot tell) and libvirt's answers.
type host struct {
	root string
	lv   *sbtest.Libvirt
	rel  nova.Release
}

func newHost(t *testing.T, rel nova.Release) *host {
	h := &host{root: t.TempDir(), lv: sbtest.NewLibvirt(), rel: rel}
	writeFile(t, h.root, "etc/nova/nova.conf", []byte("[DEFAULT]\nhost = cmp1\n[libvirt]\nswtpm_enabled = True\n"))
	return h
}

// guest defines a domain whose NVRAM file holds b (nil: no NVRAM).
func (h *host) guest(t *testing.T, name, uuid string, state hostcheck.DomainState, b []byte) string {
	nvram := ""
	if b != nil {
		nvram = "/var/lib/libvirt/qemu/nvram/" + name + "_VARS.fd"
		writeFile(t, h.root, nvram, b)
	}
	h.lv.Define(domainXML(name, uuid, "server "+name, nvram), uuid, state)
	return filepath.Join(h.root, nvram)
}

func (h *host) options() hostcheck.Options {
	return hostcheck.Options{Root: h.root, Release: h.rel, LibvirtURI: "test:///cmp1"}
}
