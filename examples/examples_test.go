// Package examples holds no code: its test keeps the fleet examples honest.
package examples

import (
	"os"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestDaemonSetManifest(t *testing.T) {
	data, err := os.ReadFile("kubernetes/host-check-daemonset.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var ds struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Spec       struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Args         []string `yaml:"args"`
						VolumeMounts []struct {
							Name      string `yaml:"name"`
							MountPath string `yaml:"mountPath"`
						} `yaml:"volumeMounts"`
					} `yaml:"containers"`
					Volumes []struct {
						Name     string `yaml:"name"`
						HostPath struct {
							Path string `yaml:"path"`
						} `yaml:"hostPath"`
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
	if ds.APIVersion != "apps/v1" || ds.Kind != "DaemonSet" || len(ds.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("not a one-container apps/v1 DaemonSet: %+v", ds)
	}
	c := ds.Spec.Template.Spec.Containers[0]
	if !strings.Contains(strings.Join(c.Args, " "), "vtpmctl host check -f json --root /host") {
		t.Errorf("the container does not run host check: %q", c.Args)
	}
	hostPaths := map[string]string{}
	for _, v := range ds.Spec.Template.Spec.Volumes {
		hostPaths[v.Name] = v.HostPath.Path
	}
	for _, m := range c.VolumeMounts {
		hp, ok := hostPaths[m.Name]
		if !ok {
			t.Errorf("mount %s has no volume", m.Name)
			continue
		}
		if m.MountPath != "/host"+hp {
			t.Errorf("%s mounted at %s, want /host%s (host check reads below --root /host)", hp, m.MountPath, hp)
		}
	}
	for _, want := range []string{"/etc/nova", "/etc/libvirt", "/run/libvirt"} {
		found := false
		for _, p := range hostPaths {
			found = found || p == want
		}
		if !found {
			t.Errorf("no hostPath %s", want)
		}
	}
}

func TestAnsiblePlaybook(t *testing.T) {
	data, err := os.ReadFile("ansible/host-audit.yml")
	if err != nil {
		t.Fatal(err)
	}
	var plays []struct {
		Hosts string           `yaml:"hosts"`
		Tasks []map[string]any `yaml:"tasks"`
	}
	if err := yaml.Unmarshal(data, &plays); err != nil {
		t.Fatalf("playbook does not parse: %v", err)
	}
	if len(plays) != 2 || plays[0].Hosts != "compute" || plays[1].Hosts != "localhost" {
		t.Fatalf("want a compute play and a localhost play, got %+v", plays)
	}
	text := string(data)
	for _, want := range []string{"'host', 'check', '-f', 'json'", "'hosts', 'report'", "failed_when: host_check.rc == 2"} {
		if !strings.Contains(text, want) {
			t.Errorf("playbook lacks %q", want)
		}
	}
}
