// Package vcsim starts govmomi's vCenter simulator for tests, beside
// fakecloud's OpenStack: one way in for the vCenter tests (plan import
// --vcenter, the vsphere reader). vcsim serves itself; this package only
// starts and stops it. It is not in fakecloud because the simulator
// doubles the size and link time of every test binary that imports it.
package vcsim

import (
	"crypto/tls"
	"net/url"
	"testing"

	"github.com/vmware/govmomi/simulator"
)

// Start starts govmomi's vCenter simulator (vcsim, the VPX model: DC0
// with a host and a cluster, vms VMs on each; 0 keeps the model's) over
// TLS with a password it checks, as a real vCenter, for the test (the
// test's own: a test finds it in no output). It returns the SDK URL
// without credentials, and the credentials; the simulator stops when the
// test ends.
func Start(t testing.TB, vms int) (u *url.URL, user, password string) {
	t.Helper()
	u, user, password, stop, err := Serve(vms, "pw-"+t.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return u, user, password
}

// Serve is Start without a test (a benchmark shares one simulator over
// its runs): stop ends it.
func Serve(vms int, password string) (u *url.URL, user, pass string, stop func(), err error) {
	m := simulator.VPX()
	if vms > 0 {
		m.Machine = vms
	}
	if err := m.Create(); err != nil {
		return nil, "", "", nil, err
	}
	m.Service.TLS = new(tls.Config)
	m.Service.Listen = &url.URL{User: url.UserPassword("auditor@vsphere.local", password)}
	s := m.Service.NewServer()
	sdk := *s.URL
	user = sdk.User.Username()
	pass, _ = sdk.User.Password()
	sdk.User = nil
	return &sdk, user, pass, func() { s.Close(); m.Remove() }, nil
}
