// Package examples holds no code: its test keeps the fleet examples honest.
package examples

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestDaemonSetManifest checks the OpenStack-Helm example against what the
// charts name: the Secrets nova-etc (key nova-compute.conf, mounted at
// /etc/nova/nova.conf: nova/templates/daemonset-compute.yaml:339-341,
// configmap-etc.yaml:224) and libvirt-etc (key qemu.conf at
// /etc/libvirt/qemu.conf: libvirt/templates/daemonset-libvirt.yaml:248-250),
// the node's /run/libvirt and /var/lib/libvirt, and the compute label.
func TestDaemonSetManifest(t *testing.T) {
	data, err := os.ReadFile("kubernetes/host-check-daemonset.yaml")
	if err != nil {
		t.Fatal(err)
	}
	type mount struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
		SubPath   string `yaml:"subPath"`
	}
	type container struct {
		Image        string   `yaml:"image"`
		Command      []string `yaml:"command"`
		Args         []string `yaml:"args"`
		VolumeMounts []mount  `yaml:"volumeMounts"`
	}
	var ds struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Spec       struct {
			Template struct {
				Spec struct {
					NodeSelector   map[string]string `yaml:"nodeSelector"`
					InitContainers []container       `yaml:"initContainers"`
					Containers     []container       `yaml:"containers"`
					Volumes        []struct {
						Name     string `yaml:"name"`
						HostPath *struct {
							Path string `yaml:"path"`
						} `yaml:"hostPath"`
						Secret *struct {
							SecretName string `yaml:"secretName"`
						} `yaml:"secret"`
						EmptyDir any `yaml:"emptyDir"`
					} `yaml:"volumes"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(false)
	if err := dec.Decode(&ds); err != nil {
		t.Fatalf("manifest does not parse: %v", err)
	}
	spec := ds.Spec.Template.Spec
	if ds.APIVersion != "apps/v1" || ds.Kind != "DaemonSet" || len(spec.Containers) != 1 || len(spec.InitContainers) != 1 {
		t.Fatalf("not an apps/v1 DaemonSet with one init container and one container: %+v", ds)
	}
	if spec.NodeSelector["openstack-compute-node"] != "enabled" {
		t.Errorf("nodeSelector %v: the libvirt chart runs on openstack-compute-node=enabled", spec.NodeSelector)
	}
	c := spec.Containers[0]
	if !strings.Contains(strings.Join(c.Args, " "), "/opt/vtpmctl/vtpmctl host check --layout openstack-helm -f json") {
		t.Errorf("the container does not run host check with the openstack-helm layout: %q", c.Args)
	}
	if !strings.HasPrefix(c.Image, "quay.io/airshipit/libvirt:") {
		t.Errorf("image %s: the check runs in the libvirt chart's image (its swtpm user and binaries)", c.Image)
	}
	secrets, hostPaths := map[string]string{}, map[string]string{}
	for _, v := range spec.Volumes {
		switch {
		case v.Secret != nil:
			secrets[v.Name] = v.Secret.SecretName
		case v.HostPath != nil:
			hostPaths[v.Name] = v.HostPath.Path
		}
	}
	type want struct{ secret, key, path string }
	got := map[string]bool{}
	for _, m := range c.VolumeMounts {
		switch {
		case secrets[m.Name] != "":
			got[secrets[m.Name]+":"+m.SubPath+"->"+m.MountPath] = true
		case hostPaths[m.Name] != "":
			if hostPaths[m.Name] != m.MountPath {
				t.Errorf("node path %s mounted at %s: the layout reads it where the node has it", hostPaths[m.Name], m.MountPath)
			}
			got[hostPaths[m.Name]] = true
		}
	}
	for _, w := range []string{"nova-etc:nova-compute.conf->/etc/nova/nova.conf", "libvirt-etc:qemu.conf->/etc/libvirt/qemu.conf", "/run/libvirt", "/var/lib/libvirt"} {
		if !got[w] {
			t.Errorf("missing mount %s (have %v)", w, got)
		}
	}
	ic := spec.InitContainers[0]
	if len(ic.VolumeMounts) != 1 || ic.VolumeMounts[0].Name != "vtpmctl-bin" || !strings.Contains(strings.Join(ic.Command, " "), "/opt/vtpmctl/vtpmctl") {
		t.Errorf("init container does not copy vtpmctl into the shared volume: %+v", ic)
	}
}

// TestPlaybooks: each fleet play runs host check on the compute group,
// fails a host only on a usage error, keeps each report under a directory
// it makes, and merges the reports; the kolla one with kolla's layout.
// host-audit.yml itself runs for real against two computes in the
// integration suite (cmd/vtpmctl TestIntegrationAnsibleHostAudit, on
// 2026.1): this keeps the kolla one, which no local cloud can run, in step.
func TestPlaybooks(t *testing.T) {
	for file, wants := range map[string][]string{
		"ansible/host-audit.yml":       {"'host', 'check', '-f', 'json'", "(vtpmctl_check_args | default([]))"},
		"ansible/kolla-host-check.yml": {"'host', 'check', '--layout', 'kolla', '-f', 'json'"},
	} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var plays []struct {
			Hosts string           `yaml:"hosts"`
			Tasks []map[string]any `yaml:"tasks"`
		}
		if err := yaml.Unmarshal(data, &plays); err != nil {
			t.Fatalf("%s does not parse: %v", file, err)
		}
		if len(plays) != 2 || plays[0].Hosts != "compute" || plays[1].Hosts != "localhost" {
			t.Fatalf("%s: want a compute play and a localhost play, got %+v", file, plays)
		}
		for _, want := range append(wants, "'hosts', 'report'", "failed_when: host_check.rc == 2") {
			if !strings.Contains(string(data), want) {
				t.Errorf("%s lacks %q", file, want)
			}
		}
		// the reports' directory exists before the first report is copied
		// there (ansible's copy makes no parent directory)
		mk, keep := -1, -1
		for i, task := range plays[0].Tasks {
			f, _ := task["ansible.builtin.file"].(map[string]any)
			c, _ := task["ansible.builtin.copy"].(map[string]any)
			switch {
			case f != nil && f["path"] == "{{ reports_dir }}" && f["state"] == "directory" && task["delegate_to"] == "localhost":
				mk = i
			case c != nil && strings.HasPrefix(fmt.Sprint(c["dest"]), "{{ reports_dir }}/"):
				keep = i
			}
		}
		if mk < 0 || keep < mk {
			t.Errorf("%s: the compute play must make reports_dir on the control node before it keeps a report there (tasks %d, %d)", file, mk, keep)
		}
	}
}

// TestHostAuditVarsDocumented: every variable host-audit.yml reads from
// the operator is explained in its header, where they look first.
func TestHostAuditVarsDocumented(t *testing.T) {
	data, err := os.ReadFile("ansible/host-audit.yml")
	if err != nil {
		t.Fatal(err)
	}
	var header []string
	for _, l := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(l, "#") {
			break
		}
		header = append(header, l)
	}
	doc := strings.Join(header, "\n")
	for _, v := range []string{"vtpmctl_local", "vtpmctl_remote", "reports_dir", "nova_release", "vtpmctl_check_args"} {
		if !strings.Contains(string(data[len(doc):]), v) {
			t.Errorf("host-audit.yml no longer reads %s: drop it from this list and the header", v)
		}
		if !strings.Contains(doc, "#   "+v+" ") {
			t.Errorf("host-audit.yml's header does not explain %s", v)
		}
	}
}
