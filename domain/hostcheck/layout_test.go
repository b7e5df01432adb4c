package hostcheck

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// writeFS lays files out below a directory (a host, or a container's
// filesystem); "dir/" entries are directories.
func writeFS(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, p)
		if strings.HasSuffix(p, "/") {
			os.MkdirAll(full, 0o711)
			continue
		}
		os.MkdirAll(filepath.Dir(full), 0o755)
		mode := os.FileMode(0o644)
		if strings.Contains(p, "/bin/") {
			mode = 0o755
		}
		if err := os.WriteFile(full, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// imageFS is a container image's filesystem with swtpm installed: its
// package created user (and group) name with the test's own ids, so the
// ownership checks work without root.
func imageFS(user string, extra map[string]string) map[string]string {
	fs := map[string]string{
		"etc/passwd":    fmt.Sprintf("root:x:0:0::/root:/bin/sh\n%s:x:%d:%d::/var/lib/swtpm:/bin/false\n", user, os.Getuid(), os.Getgid()),
		"etc/group":     fmt.Sprintf("root:x:0:\n%s:x:%d:\n", user, os.Getgid()),
		"usr/bin/swtpm": "#!/bin/sh\n", "usr/bin/swtpm_setup": "#!/bin/sh\n", "usr/bin/swtpm_ioctl": "#!/bin/sh\n",
		"var/lib/swtpm-localca/": "",
	}
	for k, v := range extra {
		fs[k] = v
	}
	return fs
}

// Rendered as each deployer writes them: kolla-ansible nova-cell
// templates nova.conf.d/libvirt.conf.j2 and qemu.conf.j2 (swtpm_user tss
// on CentOS/Rocky/Debian images, defaults/main.yml:600); OpenStack-Helm's
// nova-compute.conf and libvirt qemu.conf from the charts' values;
// OpenStack-Ansible's nova.conf in the venv, /etc/nova a link to it.
const (
	kollaNovaConf = "[DEFAULT]\nhost = cmp7\n[libvirt]\nconnection_uri = \"qemu+tcp://192.0.2.17/system\"\nlive_migration_inbound_addr = \"192.0.2.17\"\nvirt_type = kvm\nswtpm_enabled = true\nswtpm_user = tss\nswtpm_group = tss\n"
	kollaQemuConf = "stdio_handler = \"logd\"\n\nuser = \"nova\"\ngroup = \"nova\"\n\nmax_files =  32768\nmax_processes =  131072\n\nswtpm_user = \"tss\"\nswtpm_group = \"tss\"\n"
	helmNovaConf  = "[DEFAULT]\nhost = cmp8\n[libvirt]\nconnection_uri = qemu+unix:///system?socket=/run/libvirt/libvirt-sock\nvirt_type = kvm\nswtpm_enabled = True\nswtpm_user = swtpm\nswtpm_group = swtpm\n"
	helmQemuConf  = "stdio_handler = \"file\"\nuser = \"nova\"\ngroup = \"kvm\"\nswtpm_user = \"swtpm\"\nswtpm_group = \"swtpm\"\n"
	osaNovaConf   = "[DEFAULT]\nhost = cmp9\n[libvirt]\nvirt_type = kvm\nswtpm_enabled = True\nswtpm_user = swtpm\nswtpm_group = swtpm\n"
	osaQemuConf   = "user = \"nova\"\ngroup = \"nova\"\nswtpm_user = \"swtpm\"\nswtpm_group = \"swtpm\"\n"
	novaDistInfo  = "Metadata-Version: 2.1\nName: nova\nVersion: 31.0.0\n"
)

func layoutRun(t *testing.T, o Options) *Report {
	t.Helper()
	o.Hypervisor = &fakeHV{libV: V(9, 0, 0), qemuV: V(7, 2, 0), caps: mustRead(t, "testdata/domcaps-libvirt9-q35.xml")}
	r, err := Run(o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return r
}

func mustRead(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func statusOf(r *Report, ids ...string) string {
	var out []string
	for _, id := range ids {
		out = append(out, id+"="+string(find(r, id).Status))
	}
	return strings.Join(out, " ")
}

func TestLayoutKolla(t *testing.T) {
	base := t.TempDir()
	host, ctrCompute, ctrLibvirt := filepath.Join(base, "host"), filepath.Join(base, "nova_compute"), filepath.Join(base, "nova_libvirt")
	writeFS(t, host, map[string]string{
		"etc/kolla/nova-compute/nova.conf": kollaNovaConf, "etc/kolla/nova-libvirt/qemu.conf": kollaQemuConf,
		"var/lib/docker/volumes/libvirtd/_data/swtpm/": "",
		"etc/passwd": "root:x:0:0::/root:/bin/sh\n", // no tss on the host: it lives in the images
	})
	writeFS(t, ctrCompute, imageFS("tss", map[string]string{"var/lib/kolla/venv/lib/python3.12/site-packages/nova-31.0.0.dist-info/METADATA": novaDistInfo}))
	writeFS(t, ctrLibvirt, imageFS("tss", nil))
	containers := map[string]string{"nova_compute": ctrCompute, "nova_libvirt": ctrLibvirt}
	ctrRoot := func(name string) (string, error) {
		if d, ok := containers[name]; ok {
			return d, nil
		}
		return "", errors.New("no such container")
	}
	// A live kolla host: containers found through the engine (here a
	// function), the layout detected from /etc/kolla.
	r := layoutRun(t, Options{Root: host, LibvirtURI: "test:///default", ContainerRoot: ctrRoot})
	want := "SWTPM-USER=pass SWTPM-GROUP=pass SWTPM-USER-LIBVIRT=pass SWTPM-BINARIES=pass SWTPM-STATE-DIR=pass SWTPM-LOCALCA=pass"
	if got := statusOf(r, "SWTPM-USER", "SWTPM-GROUP", "SWTPM-USER-LIBVIRT", "SWTPM-BINARIES", "SWTPM-STATE-DIR", "SWTPM-LOCALCA"); got != want || r.Layout.Name != LayoutKolla ||
		r.NovaRelease != nova.Epoxy || r.Host != "cmp7" || r.Facts.StateDir != "/var/lib/docker/volumes/libvirtd/_data/swtpm" {
		t.Errorf("healthy kolla: %s (%s, Nova %s, host %s, state %s)\n%+v", got, r.Layout.Evidence, r.NovaRelease, r.Host, r.Facts.StateDir, r.Checks)
	}
	if !strings.Contains(find(r, "SWTPM-BINARIES").Message, "libvirtd's filesystem and nova-compute's filesystem") {
		t.Errorf("binaries: %+v", find(r, "SWTPM-BINARIES"))
	}

	// The libvirt image lost swtpm (and its user): libvirtd cannot start a
	// vTPM, whatever nova_compute has.
	os.Remove(filepath.Join(ctrLibvirt, "usr/bin/swtpm"))
	os.WriteFile(filepath.Join(ctrLibvirt, "etc/passwd"), []byte("root:x:0:0::/root:/bin/sh\n"), 0o644)
	r = layoutRun(t, Options{Root: host, LibvirtURI: "test:///default", ContainerRoot: ctrRoot})
	if got := statusOf(r, "SWTPM-USER", "SWTPM-USER-LIBVIRT", "SWTPM-BINARIES"); got != "SWTPM-USER=pass SWTPM-USER-LIBVIRT=fail SWTPM-BINARIES=fail" ||
		!strings.Contains(find(r, "SWTPM-BINARIES").Message, "swtpm (in libvirtd's filesystem)") ||
		strings.Contains(find(r, "SWTPM-BINARIES").Message, "vTPM support is configured") { // nova_compute has them: Nova says nothing
		t.Errorf("libvirt image without swtpm: %s\n%+v", got, r.Checks)
	}

	// Under --root (a mounted host) no container is reachable: their
	// checks are skips that say how to give them.
	r = layoutRun(t, Options{Root: host, Release: nova.Epoxy})
	if got := statusOf(r, "SWTPM-USER", "SWTPM-BINARIES", "SWTPM-LOCALCA"); got != "SWTPM-USER=skip SWTPM-BINARIES=skip SWTPM-LOCALCA=skip" ||
		!strings.Contains(find(r, "SWTPM-USER").Message, "give nova_root DIR") {
		t.Errorf("--root: %s\n%+v", got, r.Checks)
	}
	// --nova-root/--libvirt-root give them back.
	r = layoutRun(t, Options{Root: host, Release: nova.Epoxy, NovaRoot: ctrCompute, LibvirtRoot: ctrLibvirt, Layout: LayoutKolla})
	if got := statusOf(r, "SWTPM-USER", "SWTPM-USER-LIBVIRT"); got != "SWTPM-USER=pass SWTPM-USER-LIBVIRT=fail" {
		t.Errorf("--nova-root: %s", got)
	}
}

func TestLayoutOpenStackHelm(t *testing.T) {
	// The example DaemonSet's container: the libvirt image's filesystem,
	// the Secrets mounted where the charts mount them, the node's
	// /var/lib/libvirt.
	pod := t.TempDir()
	writeFS(t, pod, imageFS("swtpm", map[string]string{
		"etc/nova/nova.conf": helmNovaConf, "etc/nova/nova.conf.d/": "", "etc/libvirt/qemu.conf": helmQemuConf,
		"var/lib/libvirt/swtpm/":                                 "",
		"var/run/secrets/kubernetes.io/serviceaccount/namespace": "openstack",
	}))
	r := layoutRun(t, Options{Root: pod, Release: nova.Epoxy, LibvirtURI: "test:///default"})
	if got := statusOf(r, "SWTPM-USER", "SWTPM-USER-LIBVIRT", "SWTPM-BINARIES", "SWTPM-LOCALCA"); got != "SWTPM-USER=skip SWTPM-USER-LIBVIRT=pass SWTPM-BINARIES=pass SWTPM-LOCALCA=pass" ||
		r.Layout.Name != LayoutHelm || r.Layout.NovaConfDir != "/etc/nova/nova.conf.d" {
		t.Errorf("helm: %s (%+v)\n%+v", got, r.Layout, r.Checks)
	}
	// The libvirt chart's qemu.conf names a user the image lacks.
	os.WriteFile(filepath.Join(pod, "etc/libvirt/qemu.conf"), []byte(strings.ReplaceAll(helmQemuConf, "\"swtpm\"", "\"tss\"")), 0o644)
	r = layoutRun(t, Options{Root: pod, Release: nova.Epoxy, LibvirtURI: "test:///default", Layout: LayoutHelm})
	if c := find(r, "SWTPM-USER-LIBVIRT"); c.Status != Fail || !strings.Contains(c.Message, "runs swtpm as tss, which does not exist") {
		t.Errorf("helm qemu.conf user: %+v", c)
	}
}

func TestLayoutOpenStackAnsible(t *testing.T) {
	host := t.TempDir()
	venv := "openstack/venvs/nova-31.0.0"
	writeFS(t, host, imageFS("swtpm", map[string]string{
		venv + "/etc/nova/nova.conf": osaNovaConf, "etc/libvirt/qemu.conf": osaQemuConf,
		venv + "/lib/python3.12/site-packages/nova-31.0.0.dist-info/METADATA": novaDistInfo,
		venv + "/lib/python3.12/site-packages/nova/virt/libvirt/guest.py":     "flags |= libvirt.VIR_DOMAIN_UNDEFINE_KEEP_TPM\n",
		"var/lib/libvirt/swtpm/": "",
	}))
	if err := os.Symlink("/"+venv+"/etc/nova", filepath.Join(host, "etc/nova")); err != nil {
		t.Fatal(err)
	}
	r := layoutRun(t, Options{Root: host, LibvirtURI: "test:///default"})
	if got := statusOf(r, "SWTPM-USER", "SWTPM-USER-LIBVIRT", "SWTPM-BINARIES"); got != "SWTPM-USER=pass SWTPM-USER-LIBVIRT=pass SWTPM-BINARIES=pass" ||
		r.Layout.Name != LayoutOSA || r.NovaRelease != nova.Epoxy || r.Host != "cmp9" || r.Facts.StateKept == nil || r.Facts.StateKept.Kept != "yes" {
		t.Errorf("osa: %s %+v Nova %s\n%+v", got, r.Layout, r.NovaRelease, r.Checks)
	}
	// Without the swtpm package on the compute: fails as on any host.
	os.Remove(filepath.Join(host, "usr/bin/swtpm_setup"))
	if c := find(layoutRun(t, Options{Root: host, LibvirtURI: "test:///default"}), "SWTPM-BINARIES"); c.Status != Fail {
		t.Errorf("osa without swtpm_setup: %+v", c)
	}
}

// TestLayoutPackages: a host with none of the deployers' files is a
// distribution-packages host, and the report says why.
func TestLayoutPackages(t *testing.T) {
	r := newTree(t).run()
	if r.Layout == nil || r.Layout.Name != LayoutPackages || !strings.Contains(r.Layout.Evidence, "detected") || r.Layout.QemuConf != "/etc/libvirt/qemu.conf" {
		t.Errorf("%+v", r.Layout)
	}
}

func TestLayoutUnknown(t *testing.T) {
	if _, err := Run(Options{Root: t.TempDir(), Layout: "juju", Release: nova.Zed}); err == nil || !strings.Contains(err.Error(), "choose auto, packages, kolla") {
		t.Errorf("%v", err)
	}
}
