package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/app/secureboot/sbtest"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/internal/output/outputtest"
)

// TestYAMLReadAsYAML11: the -f yaml of real commands, whose results carry
// yes/no words (host check's carried: no on a host named "yes",
// secure-boot's nvram_kept: yes), is read by PyYAML (a YAML 1.1 reader,
// Ansible's) as their -f json is by json: every yes stays a string.
func TestYAMLReadAsYAML11(t *testing.T) {
	// a host whose installed Nova carries none of the known bugs
	root := t.TempDir()
	site := filepath.Join(root, "usr/lib/python3/dist-packages")
	for name, text := range map[string]string{
		"etc/nova/nova.conf": "[DEFAULT]\nhost = yes\n[libvirt]\nswtpm_enabled = True\n",
		"usr/lib/python3/dist-packages/nova-31.3.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: nova\nVersion: 31.3.0\n",
	} {
		writeFile(t, filepath.Join(root, name), text)
	}
	writeFile(t, filepath.Join(site, "nova/virt/libvirt/guest.py"), "flags = VIR_DOMAIN_UNDEFINE_KEEP_TPM | VIR_DOMAIN_UNDEFINE_KEEP_NVRAM\n")
	writeFile(t, filepath.Join(site, "nova/virt/libvirt/driver.py"), "class LibvirtDriver:\n    pass\n")
	writeFile(t, filepath.Join(site, "nova/virt/libvirt/host.py"), "class Host:\n    def get_loader(self):\n        try:\n            pass\n        except KeyError:\n            pass\n")

	var docs []outputtest.Doc
	both := func(name, want string, run func(format string) string) {
		y, j := run("yaml"), run("json")
		if !strings.Contains(y, want) {
			t.Errorf("%s: the YAML lacks %q (the test's premise):\n%s", name, want, y)
		}
		docs = append(docs, outputtest.Doc{Name: name, YAML: []byte(y), JSON: []byte(j)})
	}
	cli := func(args ...string) func(string) string {
		return func(format string) string {
			out, errs, code := runCLI(t, append(args, "-f", format)...)
			if out == "" || code == exitUsage {
				t.Fatalf("%v -f %s: exit %d: %s", args, format, code, errs)
			}
			return out
		}
	}
	both("host check", `carried: "no"`, cli("host", "check", "--root", root))
	both("check", "vtpm: true", cli("check", "--image-property", "hw_tpm_version=2.0", "--nova-release", "zed"))
	both("plan checklist", "phase: before", cli("plan", "checklist", "../../examples/plan.yaml"))

	h := newSBHost(t)
	h.guest(t, "instance-0000000a", sbUUID, hostcheck.DomainShutOff, sbtest.Store2011())
	h.guest(t, "on", sbUUID2, hostcheck.DomainRunning, sbtest.Store2023())
	sb := func(args ...string) func(string) string {
		return func(format string) string {
			code, out, errs := h.run(t, "", append(args, "--nova-release", "2026.1", "-f", format)...)
			if code != exitOK {
				t.Fatalf("%v -f %s: exit %d: %s", args, format, code, errs)
			}
			return out
		}
	}
	both("host secure-boot status", `nvram_kept: "yes"`, sb("status"))
	both("host secure-boot update --dry-run", `nvram_kept: "yes"`, sb("update", "--dry-run", "--server", sbUUID))

	outputtest.PyYAMLReadsAsJSON(t, docs...)
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
