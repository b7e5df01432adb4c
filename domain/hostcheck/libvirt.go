//go:build libvirt_dlopen

package hostcheck

import (
	"libvirt.org/go/libvirt"
)

// LiveHypervisor talks to libvirtd. Built with -tags libvirt_dlopen,
// libvirt.so is loaded only here, so vtpmctl runs where libvirt is absent
// and says so in a check.
type LiveHypervisor struct{ conn *libvirt.Connect }

// ConnectLibvirt opens a connection. libvirt refuses domain capabilities
// on a read-only connection, so a read-write one is tried first; only
// read calls are ever made, and GetValue of a secret never.
func ConnectLibvirt(uri string) (*LiveHypervisor, error) {
	c, err := libvirt.NewConnect(uri)
	if err != nil {
		if c, err = libvirt.NewConnectReadOnly(uri); err != nil {
			return nil, err
		}
	}
	return &LiveHypervisor{conn: c}, nil
}

func (h *LiveHypervisor) Versions() (Version, Version, error) {
	lv, err := h.conn.GetLibVersion()
	if err != nil {
		return 0, 0, err
	}
	qv, err := h.conn.GetVersion()
	return Version(lv), Version(qv), err
}

func (h *LiveHypervisor) DomainCapabilities(virtType, machine string) (string, error) {
	return h.conn.GetDomainCapabilities("", "x86_64", machine, virtType, 0)
}

func (h *LiveHypervisor) Domains() ([]string, error) {
	doms, err := h.conn.ListAllDomains(0)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range doms {
		x, err := d.GetXMLDesc(0)
		d.Free()
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

// Secrets returns secret metadata only; GetValue is never called.
func (h *LiveHypervisor) Secrets() ([]string, error) {
	secs, err := h.conn.ListAllSecrets(0)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range secs {
		x, err := s.GetXMLDesc(0)
		s.Free()
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

func (h *LiveHypervisor) Hostname() (string, error) { return h.conn.GetHostname() }

func (h *LiveHypervisor) Close() error {
	_, err := h.conn.Close()
	return err
}
