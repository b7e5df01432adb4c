// Package secureboot is `host secure-boot`: what each guest's UEFI
// variable store enrols (Status), and Microsoft's 2023 certificates added
// to the stores of stopped guests, offline, on the compute host (Update).
//
// Windows cannot add the KEK 2K CA 2023 itself on these platforms (a KEK
// update must be signed by the PK, a distribution's key), and a host's
// firmware package update never reaches an existing guest once Nova keeps
// its NVRAM: the one path that works is the guest's variable file,
// written while the guest is stopped.
package secureboot

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
)

// Libvirt is what status and update ask libvirtd: every domain's XML and
// one domain's state. hostcheck.LiveHypervisor is one; tests hand in
// recorded answers.
type Libvirt interface {
	Domains() ([]string, error)
	// DomainState: libvirt's state, and whether a managed save image
	// waits (Nova's suspend).
	DomainState(uuid string) (hostcheck.DomainState, bool, error)
	Close() error
}

// Connect opens libvirt at uri.
type Connect func(uri string) (Libvirt, error)

// connectLive is the real libvirt (loaded at run time).
func connectLive(uri string) (Libvirt, error) {
	h, err := hostcheck.ConnectLibvirt(uri)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// domain is one libvirt domain as status and update need it.
type domain struct {
	*hostcheck.Domain
	ServerName string // Nova's name of the instance (its metadata)
	// State: libvirt's ("" unknown: not asked, or it did not answer,
	// StateErr saying why); Saved: a managed save image waits.
	State    hostcheck.DomainState
	Saved    bool
	StateErr error
	// NVRAM: the <nvram> path on the host ("" none); File: where it is
	// on this machine ("" when it cannot be read: FileErr).
	NVRAM   string
	File    string
	FileErr error
}

// stopped: no QEMU process holds the file and none will restore it.
func (d *domain) stopped() bool { return d.State == hostcheck.DomainShutOff && !d.Saved }

// novaName is the part of Nova's domain metadata status shows.
type novaName struct {
	Name string `xml:"metadata>instance>name"`
}

// hostDomains is this host's domains: libvirt's answer, or, on a mounted
// tree whose libvirt is not asked, the persistent definitions below
// libvirtd's root (their state then unknown). Sorted by name.
func hostDomains(h *hostcheck.NVRAMHost, connect Connect) ([]*domain, string, error) {
	var xmls []string
	var lv Libvirt
	source := "libvirt " + h.LibvirtURI
	if h.LibvirtURI == "" {
		source = "the persistent domain definitions in /etc/libvirt/qemu (libvirt not asked: a mounted tree)"
		var err error
		if xmls, err = definitions(h.LibvirtRoot); err != nil {
			return nil, source, err
		}
	} else {
		if connect == nil {
			connect = connectLive
		}
		var err error
		if lv, err = connect(h.LibvirtURI); err != nil {
			return nil, source, fmt.Errorf("libvirt %s: %w", h.LibvirtURI, err)
		}
		defer lv.Close()
		if xmls, err = lv.Domains(); err != nil {
			return nil, source, fmt.Errorf("libvirt %s: listing the domains: %w", h.LibvirtURI, err)
		}
	}
	var out []*domain
	for _, x := range xmls {
		d, err := hostcheck.ParseDomain(x)
		if err != nil {
			continue // one libvirt cannot have written; not ours to judge
		}
		var nn novaName
		_ = xml.Unmarshal([]byte(x), &nn)
		dom := &domain{Domain: d, ServerName: strings.TrimSpace(nn.Name), NVRAM: strings.TrimSpace(d.OS.NVRAM.Path)}
		if lv != nil {
			dom.State, dom.Saved, dom.StateErr = lv.DomainState(d.UUID)
		}
		locate(dom, h)
		out = append(out, dom)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, source, nil
}

// state asks libvirt again for one domain's state, just before its file
// is written: it may have been started since the plan.
func stateNow(h *hostcheck.NVRAMHost, connect Connect, uuid string) (hostcheck.DomainState, bool, error) {
	if connect == nil {
		connect = connectLive
	}
	lv, err := connect(h.LibvirtURI)
	if err != nil {
		return "", false, err
	}
	defer lv.Close()
	return lv.DomainState(uuid)
}

// locate finds the domain's NVRAM file below libvirtd's root.
func locate(d *domain, h *hostcheck.NVRAMHost) {
	switch {
	case d.NVRAM == "":
	case h.LibvirtUnread != "":
		d.FileErr = fmt.Errorf("libvirtd's filesystem: %s", h.LibvirtUnread)
	default:
		d.File, d.FileErr = hostcheck.ResolveBelow(h.LibvirtRoot, d.NVRAM)
		if d.FileErr == nil && (h.LibvirtRoot == "" || h.LibvirtRoot == "/") {
			// this machine's own files: a symlink means itself (below a
			// root, ResolveBelow has resolved them all)
			if real, err := filepath.EvalSymlinks(d.File); err == nil {
				d.File = real
			}
		}
	}
}

// maxDefinitions caps the definitions read from a mounted tree.
const maxDefinitions = 10000

// definitions reads /etc/libvirt/qemu/*.xml below root.
func definitions(root string) ([]string, error) {
	dir, err := hostcheck.ResolveBelow(root, "/etc/libvirt/qemu")
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.xml"))
	if err != nil {
		return nil, err
	}
	if len(files) > maxDefinitions {
		files = files[:maxDefinitions]
	}
	var out []string
	for _, f := range files {
		st, err := os.Lstat(f)
		if err != nil || !st.Mode().IsRegular() || st.Size() > 1<<20 {
			continue // a domain definition is a small regular file
		}
		if b, err := os.ReadFile(f); err == nil {
			out = append(out, string(b))
		}
	}
	return out, nil
}
