package hostcheck

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/advice"
)

// Layouts `host check --layout` knows: where a deployment puts nova.conf,
// qemu.conf, the swtpm state, and the filesystems nova-compute and
// libvirtd run in (whose /etc/passwd must hold the swtpm user and whose
// PATH the swtpm binaries).
const (
	LayoutAuto      = "auto"
	LayoutPackages  = "packages"
	LayoutKolla     = "kolla"
	LayoutHelm      = "openstack-helm"
	LayoutOSA       = "openstack-ansible"
	kollaLibvirtCtr = "nova_libvirt"
	kollaComputeCtr = "nova_compute"
)

// Layouts lists the names --layout accepts.
var Layouts = []string{LayoutAuto, LayoutPackages, LayoutKolla, LayoutHelm, LayoutOSA}

// Layout is where one deployment keeps what host check reads. Paths are
// on the audited host (below --root); NovaRoot and LibvirtRoot are
// directories on this machine holding the filesystem nova-compute and
// libvirtd run in ("" = the host's own).
type Layout struct {
	Name        string   `json:"name"`
	Evidence    string   `json:"evidence"` // why this layout (detected or asked for)
	NovaConf    []string `json:"nova_conf"`
	NovaConfDir string   `json:"nova_conf_dir,omitempty"`
	QemuConf    string   `json:"qemu_conf"`
	StateDir    string   `json:"swtpm_state_dir"`
	LibvirtURI  string   `json:"libvirt_uri,omitempty"`
	NovaRoot    string   `json:"nova_root,omitempty"`
	LibvirtRoot string   `json:"libvirt_root,omitempty"`
	// Unread says why a container's filesystem could not be found: its
	// swtpm user and binaries are then not checked (skip, with this).
	Unread map[string]string `json:"unread,omitempty"`
}

// kollaVolumes are where Docker and Podman keep kolla's named volume
// "libvirtd" (nova-cell defaults/main.yml:456 mounts it at /var/lib/libvirt).
var kollaVolumes = []string{"/var/lib/docker/volumes/libvirtd/_data", "/var/lib/containers/storage/volumes/libvirtd/_data"}

// ResolveLayout settles the layout: the one asked for, or the one the
// host's files show (auto). containerRoot finds a running container's
// filesystem (docker/podman inspect); nil under --root.
func ResolveLayout(name, root string, containerRoot func(string) (string, error), w advice.Words) (Layout, error) {
	ev := w.Option(advice.Layout) + " " + name
	if name == "" || name == LayoutAuto {
		name, ev = detectLayout(root)
	}
	switch name {
	case LayoutPackages:
		// Debian/Ubuntu/RDO packages: nova-compute and libvirtd on the host.
		return Layout{Name: name, Evidence: ev, QemuConf: "/etc/libvirt/qemu.conf", StateDir: "/var/lib/libvirt/swtpm"}, nil
	case LayoutOSA:
		// OpenStack-Ansible (os_nova): Nova in /openstack/venvs/nova-<tag>
		// (vars/source_install.yml:37), its config in that venv's etc/nova
		// with /etc/nova a link to it (vars/main.yml:16-17,
		// tasks/nova_pre_install.yml:48-51, tasks/nova_post_install.yml:41);
		// libvirt from the distribution, qemu.conf at /etc/libvirt/qemu.conf
		// (tasks/drivers/kvm/nova_compute_kvm.yml:81-84).
		return Layout{Name: name, Evidence: ev, NovaConf: []string{"/etc/nova/nova.conf"}, QemuConf: "/etc/libvirt/qemu.conf", StateDir: "/var/lib/libvirt/swtpm"}, nil
	case LayoutKolla:
		return kollaLayout(root, ev, containerRoot, w), nil
	case LayoutHelm:
		// OpenStack-Helm runs vtpmctl as the example DaemonSet does: in the
		// libvirt image (its swtpm user and binaries are the image's own),
		// with the nova-etc Secret's nova-compute.conf at /etc/nova/nova.conf
		// as nova/templates/daemonset-compute.yaml:339-341 mounts it, the
		// libvirt-etc Secret's qemu.conf at /etc/libvirt/qemu.conf
		// (libvirt/templates/daemonset-libvirt.yaml:248-250), and the node's
		// /var/lib/libvirt and /run (ibid. :340, :346). Atmosphere deploys
		// the same charts (vexxhost/atmosphere charts/libvirt/templates/
		// daemonset-libvirt.yaml: Secret libvirt-etc, the same host paths).
		// nova-compute runs in the nova image, which is not here.
		l := Layout{Name: name, Evidence: ev, NovaConf: []string{"/etc/nova/nova.conf"}, NovaConfDir: "/etc/nova/nova.conf.d",
			QemuConf: "/etc/libvirt/qemu.conf", StateDir: "/var/lib/libvirt/swtpm", LibvirtURI: "qemu:///system",
			Unread: map[string]string{"nova": "nova-compute runs in the nova image, not in this pod: its swtpm user is not checked (give --nova-root DIR with that image's filesystem)"}}
		if _, err := statIn(root, l.NovaConfDir); err != nil {
			l.NovaConfDir = ""
		}
		return l, nil
	}
	return Layout{}, &LayoutError{Name: name}
}

// LayoutError: a layout host check does not know; the caller names the
// flag or key it came from.
type LayoutError struct{ Name string }

func (e *LayoutError) Error() string {
	return fmt.Sprintf("unknown layout %q: choose %s", e.Name, strings.Join(Layouts, ", "))
}

// detectLayout reads what each deployer leaves on a compute node.
func detectLayout(root string) (string, string) {
	if _, err := statIn(root, "/etc/kolla/nova-compute/nova.conf"); err == nil {
		return LayoutKolla, "detected: /etc/kolla/nova-compute/nova.conf (kolla-ansible)"
	}
	if m, _ := filepath.Glob(under(root, "/openstack/venvs/nova-*")); len(m) > 0 {
		return LayoutOSA, "detected: " + strings.TrimPrefix(m[0], strings.TrimSuffix(root, "/")) + " (OpenStack-Ansible)"
	}
	if _, err := statIn(root, "/var/run/secrets/kubernetes.io/serviceaccount/namespace"); err == nil || (!underRoot(root) && os.Getenv("KUBERNETES_SERVICE_HOST") != "") {
		return LayoutHelm, "detected: running in a Kubernetes pod (OpenStack-Helm)"
	}
	return LayoutPackages, "detected: no deployer's files (distribution packages)"
}

// kollaLayout: kolla-ansible keeps each container's config on the host in
// node_config_directory /etc/kolla (group_vars/all/common.yml:166), copied
// into the container at start (nova-cell templates/nova-compute.json.j2,
// nova-libvirt.json.j2); the libvirt socket is shared through /run
// (nova-cell defaults/main.yml:451; run_default_volumes_podman,
// common.yml:81-86), the swtpm state lives in the "libvirtd" volume (:456).
// swtpm and its user come from the images: kolla docker/nova/nova-libvirt
// Dockerfile.j2:30,61-62 and nova-compute Dockerfile.j2:74-75 install the
// swtpm package (user tss, or swtpm on Ubuntu: nova-cell defaults :600).
// Nova itself is in /var/lib/kolla/venv (openstack-base Dockerfile.j2:194).
func kollaLayout(root, ev string, containerRoot func(string) (string, error), w advice.Words) Layout {
	l := Layout{Name: LayoutKolla, Evidence: ev, NovaConf: []string{"/etc/kolla/nova-compute/nova.conf"},
		QemuConf: "/etc/kolla/nova-libvirt/qemu.conf", StateDir: kollaVolumes[0] + "/swtpm", Unread: map[string]string{}}
	for _, v := range kollaVolumes {
		if _, err := statIn(root, v); err == nil {
			l.StateDir = v + "/swtpm"
			break
		}
	}
	if !underRoot(root) {
		// nova.conf's connection_uri is qemu+tcp to the migration address
		// (nova.conf.d/libvirt.conf.j2:7); the shared socket is local.
		l.LibvirtURI = "qemu:///system"
	}
	for role, ctr := range map[string]string{"nova": kollaComputeCtr, "libvirt": kollaLibvirtCtr} {
		opt := advice.NovaRoot
		if role == "libvirt" {
			opt = advice.LibvirtRoot
		}
		why := "the " + ctr + " container's filesystem is not readable under " + w.Option(advice.Root) + " (give " + w.Option(opt) + " DIR)"
		if containerRoot != nil {
			dir, err := containerRoot(ctr)
			if err == nil {
				if role == "nova" {
					l.NovaRoot = dir
				} else {
					l.LibvirtRoot = dir
				}
				continue
			}
			why = "the " + ctr + " container's filesystem: " + err.Error() + " (give --" + role + "-root DIR)"
		}
		l.Unread[role] = why
	}
	return l
}

// containerRoot asks Docker, then Podman, where a running container's
// filesystem is mounted on this host: host check reads it like --root
// (never runs anything inside it).
func containerRoot(ctx context.Context, name string) (string, error) {
	var errs []string
	for _, engine := range []string{"docker", "podman"} {
		if _, err := exec.LookPath(engine); err != nil {
			continue
		}
		out, err := exec.CommandContext(ctx, engine, "inspect", "--format", "{{.GraphDriver.Data.MergedDir}}", "--", name).Output()
		dir := strings.TrimSpace(string(out))
		if err == nil && strings.HasPrefix(dir, "/") {
			return dir, nil
		}
		errs = append(errs, engine+": no running container "+name)
	}
	if len(errs) == 0 {
		return "", fmt.Errorf("neither docker nor podman is installed here")
	}
	return "", fmt.Errorf("%s", strings.Join(errs, "; "))
}
