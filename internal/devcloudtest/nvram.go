//go:build integration

package devcloudtest

import (
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// CloudHost is the cloud's own libvirt compute (Nova host devcloud): the
// release's chroot (HostA), or this machine for the Zed cloud.
func CloudHost(t testing.TB) ComputeHost {
	t.Helper()
	if Root() != "" {
		return HostA(t)
	}
	// The Zed cloud's libvirtd runs in a mount namespace of its own
	// (devcloud/up.sh: /var/lib/libvirt is bound from the cloud's data
	// dir), so its paths mean what they say only in there; /tmp is shared.
	pid, err := os.ReadFile(filepath.Join(Dir(), "run/libvirtd.pid"))
	if err != nil {
		t.Fatalf("the Zed cloud's libvirtd: %v", err)
	}
	ns := strings.TrimSpace(string(pid))
	return ComputeHost{Name: "devcloud", tmp: "/tmp", cmd: func(args ...string) *exec.Cmd {
		return exec.Command("nsenter", append([]string{"-t", ns, "--mount", "--"}, args...)...)
	}}
}

// NVRAM is a guest's UEFI variable file as its domain names it.
type NVRAM struct {
	Path     string // on the host
	Template string // the template libvirt copies when Path is missing
	Secure   bool   // <loader secure='yes'>
}

// NVRAM reads the <os> of a guest's domain (by instance UUID).
func (h ComputeHost) NVRAM(t testing.TB, instance string) NVRAM {
	t.Helper()
	out, err := h.virsh("dumpxml", "--inactive", instance)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		OS struct {
			Loader struct {
				Secure string `xml:"secure,attr"`
			} `xml:"loader"`
			NVRAM struct {
				Template string `xml:"template,attr"`
				Path     string `xml:",chardata"`
			} `xml:"nvram"`
		} `xml:"os"`
	}
	if err := xml.Unmarshal(out, &d); err != nil {
		t.Fatalf("%s: domain XML of %s: %v", h.Name, instance, err)
	}
	if d.OS.NVRAM.Path == "" {
		t.Fatalf("%s: the domain of %s has no <nvram>: not a UEFI guest", h.Name, instance)
	}
	return NVRAM{Path: d.OS.NVRAM.Path, Template: d.OS.NVRAM.Template, Secure: d.OS.Loader.Secure == "yes"}
}

// ReadHostFile reads a file of the host (nil when it does not exist).
func (h ComputeHost) ReadHostFile(t testing.TB, path string) []byte {
	t.Helper()
	if _, err := h.run("test", "-e", path); err != nil {
		return nil
	}
	b, err := h.run("cat", path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// OverwriteHostFile replaces the content of an existing file of the host
// in place (cp onto it keeps its owner, mode and labels, as libvirt set
// them).
func (h ComputeHost) OverwriteHostFile(t testing.TB, path string, b []byte) {
	t.Helper()
	name := fmt.Sprintf("vtpmctl-nvram-%d-%d", os.Getpid(), workSeq.Add(1))
	local := filepath.Join(h.tmp, name)
	if err := os.WriteFile(local, b, 0o600); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(local)
	if _, err := h.run("cp", "/tmp/"+name, path); err != nil {
		t.Fatal(err)
	}
}

// RemoveHostFile removes a file a test left on the host (a backup beside
// a guest's NVRAM, which deleting the server does not remove). For
// cleanups: a file already gone is no error.
func (h ComputeHost) RemoveHostFile(t testing.TB, path string) {
	t.Helper()
	if _, err := h.run("rm", "-f", "--", path); err != nil {
		t.Errorf("%s: removing %s: %v", h.Name, path, err)
	}
}
