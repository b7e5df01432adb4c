package hostcheck

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// recorded answers of a libvirtd (domcaps recorded from libvirt 9.0/QEMU 7.2)
type fakeHV struct {
	libV, qemuV Version
	caps        string
	domains     []string
	secrets     []string
	err         error
}

func (f *fakeHV) Versions() (Version, Version, error)            { return f.libV, f.qemuV, f.err }
func (f *fakeHV) DomainCapabilities(_, _ string) (string, error) { return f.caps, nil }
func (f *fakeHV) Domains() ([]string, error)                     { return f.domains, nil }
func (f *fakeHV) Secrets() ([]string, error)                     { return f.secrets, nil }
func (f *fakeHV) Hostname() (string, error)                      { return "cmp1.example", nil }
func (f *fakeHV) Close() error                                   { return nil }

const novaConfOK = `[DEFAULT]
host = cmp1
[libvirt]
virt_type = kvm
swtpm_enabled = True
swtpm_user = tss
swtpm_group = tss
`

const guestUUID = "6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d11"

func domainXML(uuid string, encrypted bool) string {
	enc := ""
	if encrypted {
		enc = `<encryption secret='aaaaaaaa-1111-2222-3333-444444444444'/>`
	}
	return fmt.Sprintf(`<domain type='kvm'><name>instance-00000001</name><uuid>%s</uuid><devices>
<tpm model='tpm-crb'><backend type='emulator' version='2.0'>%s</backend></tpm></devices></domain>`, uuid, enc)
}

// tree is a healthy compute host below a temp root; each case breaks one
// thing. The swtpm user's uid is the test's own, so ownership checks work
// without root.
type tree struct {
	t    *testing.T
	root string
	hv   *fakeHV
	o    Options
}

func newTree(t *testing.T) *tree {
	root := t.TempDir()
	uid := os.Getuid()
	caps, err := os.ReadFile("testdata/domcaps-libvirt9-q35.xml")
	if err != nil {
		t.Fatal(err)
	}
	tr := &tree{t: t, root: root, hv: &fakeHV{libV: V(9, 0, 0), qemuV: V(7, 2, 0), caps: string(caps)}}
	tr.write("/etc/nova/nova.conf", novaConfOK)
	tr.write("/etc/libvirt/qemu.conf", "# libvirt\nuser = \"libvirt-qemu\"\nswtpm_user = \"tss\"\nswtpm_group = \"tss\"\nnvram = [\n \"a:b\",\n]\n")
	tr.write("/etc/passwd", fmt.Sprintf("root:x:0:0::/root:/bin/sh\ntss:x:%d:%d::/var/lib/tpm:/bin/false\n", uid, os.Getgid()))
	tr.write("/etc/group", fmt.Sprintf("root:x:0:\ntss:x:%d:\n", os.Getgid()))
	for _, b := range []string{"swtpm", "swtpm_setup", "swtpm_ioctl"} {
		tr.write("/usr/bin/"+b, "#!/bin/sh\n")
		os.Chmod(filepath.Join(root, "usr/bin", b), 0o755)
	}
	tr.mkdir("/var/lib/libvirt/swtpm", 0o711)
	tr.mkdir("/var/lib/swtpm-localca", 0o750)
	tr.o = Options{Root: root, Release: nova.Zed, Hypervisor: tr.hv}
	return tr
}

func (tr *tree) write(p, content string) {
	full := filepath.Join(tr.root, p)
	os.MkdirAll(filepath.Dir(full), 0o755)
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		tr.t.Fatal(err)
	}
}

func (tr *tree) mkdir(p string, mode os.FileMode) {
	full := filepath.Join(tr.root, p)
	os.MkdirAll(full, mode)
	os.Chmod(full, mode)
}

func (tr *tree) addGuest(encrypted, withState bool) {
	tr.hv.domains = append(tr.hv.domains, domainXML(guestUUID, encrypted))
	if withState {
		tr.mkdir("/var/lib/libvirt/swtpm/"+guestUUID+"/tpm2", 0o700)
	}
}

func (tr *tree) run() *Report {
	r, err := Run(tr.o)
	if err != nil {
		tr.t.Fatalf("Run: %v", err)
	}
	return r
}

func find(r *Report, id string) Check {
	for _, c := range r.Checks {
		if c.ID == id {
			return c
		}
	}
	return Check{ID: id, Status: "absent"}
}

func TestHealthyHostPasses(t *testing.T) {
	tr := newTree(t)
	tr.addGuest(true, true)
	r := tr.run()
	for _, c := range r.Checks {
		if c.Status == Fail {
			t.Errorf("%s failed on a healthy host: %s", c.ID, c.Message)
		}
	}
	if len(r.VTPMGuests) != 1 || r.VTPMGuests[0].Model != "tpm-crb" {
		t.Errorf("guests %+v", r.VTPMGuests)
	}
	want := "COMPUTE_SECURITY_TPM_1_2 COMPUTE_SECURITY_TPM_2_0 COMPUTE_SECURITY_UEFI_SECURE_BOOT"
	if got := strings.Join(r.Traits, " "); got != want {
		t.Errorf("Zed traits %q, want %q", got, want)
	}
	if r.Host != "cmp1" || r.Facts.HypervisorHostname != "cmp1.example" {
		t.Errorf("host %q hypervisor %q", r.Host, r.Facts.HypervisorHostname)
	}
}

// Each case breaks one thing and names the check that must fail (or warn)
// and a piece of its message — Nova's own text where Nova has one.
func TestFailingHosts(t *testing.T) {
	cases := []struct {
		name   string
		breakf func(tr *tree)
		id     string
		status Status
		msg    string
	}{
		{"swtpm disabled", func(tr *tree) {
			tr.write("/etc/nova/nova.conf", strings.Replace(novaConfOK, "swtpm_enabled = True", "swtpm_enabled = false", 1))
		},
			"SWTPM-ENABLED", Fail, "swtpm_enabled is False"},
		{"swtpm disabled with vTPM guests", func(tr *tree) {
			tr.write("/etc/nova/nova.conf", strings.Replace(novaConfOK, "swtpm_enabled = True", "swtpm_enabled = off", 1))
			tr.addGuest(true, true)
		}, "VTPM-GUESTS", Fail, "This host has instances with the vTPM feature enabled, but the host is not correctly configured; enable vTPM support."},
		{"lxc", func(tr *tree) { tr.write("/etc/nova/nova.conf", strings.Replace(novaConfOK, "kvm", "lxc", 1)) },
			"VIRT-TYPE", Fail, "vTPM support requires '[libvirt] virt_type' of 'qemu' or 'kvm'; found 'lxc'."},
		{"missing user", func(tr *tree) { tr.write("/etc/nova/nova.conf", novaConfOK+"swtpm_user = swtpm\n") },
			"SWTPM-USER", Fail, "The user configured in '[libvirt] swtpm_user' does not exist on this host; expected 'swtpm'."},
		{"wrong group", func(tr *tree) { tr.write("/etc/nova/nova.conf", novaConfOK+"swtpm_group = swtpm\n") },
			"SWTPM-GROUP", Fail, "The group configured in '[libvirt] swtpm_group' does not exist on this host; expected 'swtpm'."},
		{"qemu.conf differs", func(tr *tree) { tr.write("/etc/libvirt/qemu.conf", "swtpm_user = \"swtpm\"\n") },
			"SWTPM-USER-LIBVIRT", Fail, "libvirt ("},
		{"binary missing, Zed", func(tr *tree) {
			os.Remove(filepath.Join(tr.root, "usr/bin/swtpm"))
			os.Remove(filepath.Join(tr.root, "usr/bin/swtpm_setup"))
		},
			"SWTPM-BINARIES", Fail, "vTPM support is configured but the 'swtpm' and 'swtpm_setup' binaries could not be found on PATH."},
		{"swtpm_ioctl missing on 2024.2 is what Nova never checks", func(tr *tree) {
			tr.o.Release = nova.Dalmatian
			os.Remove(filepath.Join(tr.root, "usr/bin/swtpm_ioctl"))
		},
			"SWTPM-BINARIES", Warn, "does not check this itself"},
		{"libvirt too old", func(tr *tree) { tr.hv.libV = V(5, 10, 0) },
			"LIBVIRT", Fail, "libvirt 5.10.0 < 6.0.0"},
		{"libvirt unreachable", func(tr *tree) { tr.hv.err = errors.New("Failed to connect socket") },
			"LIBVIRT", Fail, "not reachable"},
		{"no emulator backend on 2024.2", func(tr *tree) {
			tr.o.Release = nova.Dalmatian
			tr.hv.caps = strings.Replace(tr.hv.caps, "<value>emulator</value>", "", 1)
		}, "DOMCAPS-TPM", Fail, "vTPM support is configured but it's not supported by libvirt."},
		{"no secure boot loader", func(tr *tree) {
			tr.hv.caps = strings.Replace(tr.hv.caps, "<value>yes</value>\n        <value>no</value>\n      </enum>\n    </loader>", "<value>no</value>\n      </enum>\n    </loader>", 1)
		},
			"UEFI-SECURE-BOOT", Warn, "no Secure Boot UEFI loader"},
		{"libvirt below 8.9 wipes state", func(tr *tree) { tr.hv.libV = V(8, 0, 0); tr.o.Release = nova.Gazpacho },
			"KEEP-TPM-STATE", Fail, "libvirt 8.0.0 < 8.9.0"},
		{"2025.1 whose installed code lacks the fix wipes state", func(tr *tree) {
			tr.o.Release = nova.Epoxy
			tr.write("/usr/lib/python3/dist-packages/nova-31.0.0.egg-info/PKG-INFO", "")
			tr.write("/usr/lib/python3/dist-packages/nova/virt/libvirt/guest.py", "flags |= libvirt.VIR_DOMAIN_UNDEFINE_NVRAM\n")
		}, "KEEP-TPM-STATE", Warn, "guest.py lacks VIR_DOMAIN_UNDEFINE_KEEP_TPM"},
		{"2025.1 with the backport keeps state", func(tr *tree) {
			tr.o.Release = nova.Epoxy
			tr.write("/usr/lib/python3/dist-packages/nova-31.1.0.egg-info/PKG-INFO", "")
			tr.write("/usr/lib/python3/dist-packages/nova/virt/libvirt/guest.py", "flags |= libvirt.VIR_DOMAIN_UNDEFINE_KEEP_TPM\n")
		}, "KEEP-TPM-STATE", Pass, "carries the bug 2118888 fix"},
		{"2025.1 without readable code: the release alone cannot tell", func(tr *tree) { tr.o.Release = nova.Epoxy },
			"KEEP-TPM-STATE", Warn, "no installed Nova code is readable"},
		{"state dir world-writable", func(tr *tree) { tr.mkdir("/var/lib/libvirt/swtpm", 0o777) },
			"SWTPM-STATE-DIR", Fail, "writable by group or others"},
		{"state dir gone with guests", func(tr *tree) {
			os.RemoveAll(filepath.Join(tr.root, "var/lib/libvirt/swtpm"))
			tr.addGuest(true, false)
		},
			"SWTPM-STATE-DIR", Fail, "is missing but vTPM guests are defined"},
		{"local CA not writable", func(tr *tree) { tr.mkdir("/var/lib/swtpm-localca", 0o500) },
			"SWTPM-LOCALCA", Fail, "not writable by the swtpm user"},
		{"guest state missing", func(tr *tree) { tr.addGuest(true, false) },
			"VTPM-GUESTS", Fail, "state dir"},
		{"guest not encrypted", func(tr *tree) { tr.addGuest(false, true) },
			"VTPM-GUESTS", Fail, "no <encryption secret"},
		{"deployment mode without service user", func(tr *tree) { tr.o.Release = nova.Gazpacho },
			"SERVICE-USER", Fail, "Ensure the [service_user] section of the Nova configuration file is correctly configured for the Nova service user."},
		{"unknown secret security mode", func(tr *tree) {
			tr.o.Release = nova.Gazpacho
			tr.write("/etc/nova/nova.conf", novaConfOK+"supported_tpm_secret_security = user,vault\n")
		}, "SECRET-SECURITY", Warn, `has "vault", which Nova ignores (known modes: user, host, deployment); supported modes: user`},
		{"empty secret security list", func(tr *tree) {
			tr.o.Release = nova.Gazpacho
			tr.write("/etc/nova/nova.conf", novaConfOK+"supported_tpm_secret_security =\n")
		}, "SECRET-SECURITY", Fail, "is empty: Nova reports no COMPUTE_SECURITY_TPM_SECRET_SECURITY_* trait"},
		{"only unknown secret security modes", func(tr *tree) {
			tr.o.Release = nova.Gazpacho
			tr.write("/etc/nova/nova.conf", novaConfOK+"supported_tpm_secret_security = vault\n")
		}, "SECRET-SECURITY", Fail, `names no mode Nova knows ("vault")`},
		{"resume on boot with user-mode guests", func(tr *tree) {
			tr.write("/etc/nova/nova.conf", strings.Replace(novaConfOK, "[DEFAULT]\n", "[DEFAULT]\nresume_guests_state_on_host_boot = yes\n", 1))
			tr.addGuest(true, true)
		}, "RESUME-ON-BOOT", Fail, "come back in ERROR"},
		{"orphan host-mode secret", func(tr *tree) {
			tr.o.Release = nova.Gazpacho
			tr.hv.secrets = []string{`<secret ephemeral='no' private='no'><uuid>bbbb</uuid><usage type='vtpm'><name>gone-instance</name></usage></secret>`}
		}, "HOST-MODE-SECRETS", Warn, "no longer on this host"},
		{"key manager not barbican", func(tr *tree) {
			tr.write("/etc/nova/nova.conf", novaConfOK+"[key_manager]\nbackend = castellan.tests.unit.key_manager.mock_key_manager.MockKeyManager\n")
		},
			"KEY-MANAGER", Warn, "would not be kept in Barbican"},
		{"not the libvirt driver", func(tr *tree) {
			tr.write("/etc/nova/nova.conf", strings.Replace(novaConfOK, "[DEFAULT]\n", "[DEFAULT]\ncompute_driver = fake.FakeDriver\n", 1))
		},
			"COMPUTE-DRIVER", Fail, "only the libvirt driver emulates a TPM"},
		{"bad boolean", func(tr *tree) {
			tr.write("/etc/nova/nova.conf", strings.Replace(novaConfOK, "swtpm_enabled = True", "swtpm_enabled = maybe", 1))
		},
			"SWTPM-ENABLED", Fail, "nova.conf:5: [libvirt] swtpm_enabled = \"maybe\": expected a boolean"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := newTree(t)
			c.breakf(tr)
			r := tr.run()
			got := find(r, c.id)
			if got.Status != c.status || !strings.Contains(got.Message, c.msg) {
				t.Errorf("%s: %s %q, want %s containing %q", c.id, got.Status, got.Message, c.status, c.msg)
			}
			if c.status == Fail && !r.Failed() {
				t.Errorf("report not failed")
			}
			if got.Status == Fail && got.Remedy == "" {
				t.Errorf("%s fails without a remedy", c.id)
			}
		})
	}
}

func TestTraitsPerRelease(t *testing.T) {
	caps, _ := os.ReadFile("testdata/domcaps-libvirt9-q35.xml")
	dc, err := ParseDomCaps(string(caps))
	if err != nil {
		t.Fatal(err)
	}
	crbOnly, _ := ParseDomCaps(strings.Replace(string(caps), "<value>tpm-tis</value>", "", 1))
	cases := []struct {
		rel   nova.Release
		on    bool
		caps  *DomCaps
		modes []string
		want  string
	}{
		{nova.Caracal, true, dc, nil, "COMPUTE_SECURITY_TPM_1_2 COMPUTE_SECURITY_TPM_2_0"},
		{nova.Dalmatian, true, dc, nil, "COMPUTE_SECURITY_TPM_1_2 COMPUTE_SECURITY_TPM_2_0 COMPUTE_SECURITY_TPM_CRB COMPUTE_SECURITY_TPM_TIS"},
		{nova.Dalmatian, true, crbOnly, nil, "COMPUTE_SECURITY_TPM_1_2 COMPUTE_SECURITY_TPM_2_0 COMPUTE_SECURITY_TPM_CRB"},
		{nova.Dalmatian, true, &DomCaps{}, nil, "COMPUTE_SECURITY_TPM_1_2 COMPUTE_SECURITY_TPM_2_0 COMPUTE_SECURITY_TPM_CRB COMPUTE_SECURITY_TPM_TIS"}, // libvirt < 8.0
		{nova.Gazpacho, true, dc, []string{"user", "host"}, "COMPUTE_SECURITY_TPM_1_2 COMPUTE_SECURITY_TPM_2_0 COMPUTE_SECURITY_TPM_CRB COMPUTE_SECURITY_TPM_SECRET_SECURITY_HOST COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER COMPUTE_SECURITY_TPM_TIS"},
		{nova.Gazpacho, false, dc, []string{"user"}, ""},
	}
	for _, c := range cases {
		if got := strings.Join(sortedCopy(ExpectedTraits(c.rel, c.on, c.caps, c.modes, false)), " "); got != c.want {
			t.Errorf("%s enabled=%v: %q, want %q", c.rel, c.on, got, c.want)
		}
	}
}

func TestNovaConfSemantics(t *testing.T) {
	tr := newTree(t)
	tr.write("/etc/nova/nova.conf", "[libvirt]\nswtpm_enabled = false\nvirt_type = kvm\nvirt_type = qemu\n")
	tr.write("/etc/nova/nova.conf.d/10-tpm.conf", "[libvirt]\nswtpm_enabled = ON\n")
	tr.write("/etc/nova/nova.conf.d/20-list.conf", "[libvirt]\nsupported_tpm_secret_security = user , host\n")
	c, err := LoadNovaConf(tr.root, []string{"/etc/nova/nova.conf"}, "/etc/nova/nova.conf.d")
	if err != nil {
		t.Fatal(err)
	}
	if on, err := c.Bool("libvirt", "swtpm_enabled", false); !on || err != nil {
		t.Errorf("config dir must win: %v %v", on, err)
	}
	if c.String("libvirt", "virt_type", "") != "qemu" {
		t.Errorf("a repeated key keeps its last value")
	}
	if l := c.List("libvirt", "supported_tpm_secret_security", nil); strings.Join(l, ",") != "user,host" {
		t.Errorf("list %q", l)
	}
	if !strings.HasSuffix(c.Where("libvirt", "swtpm_enabled"), "10-tpm.conf:2") {
		t.Errorf("where %s", c.Where("libvirt", "swtpm_enabled"))
	}
}

func TestMalformedConfigs(t *testing.T) {
	cases := []struct{ file, content, want string }{
		{"/etc/nova/nova.conf", "[DEFAULT]\nhost = a\n[libvirt]\nswtpm_enabled True\n", `nova.conf:4: "swtpm_enabled True": expected "key = value"`},
		{"/etc/nova/nova.conf", "[libvirt\nx = 1\n", `nova.conf:1: "[libvirt": expected a section header`},
		{"/etc/libvirt/qemu.conf", "swtpm_user = \"tss\n", `qemu.conf:1: swtpm_user: expected a string in double quotes`},
		{"/etc/libvirt/qemu.conf", "swtpm_user tss\n", `qemu.conf:1: "swtpm_user tss": expected name = value`},
		{"/etc/libvirt/qemu.conf", "nvram = [\n\"a\"\n", `qemu.conf:1: list of nvram: expected a closing ]`},
	}
	for _, c := range cases {
		tr := newTree(t)
		tr.write(c.file, c.content)
		_, err := Run(tr.o)
		var ce *ConfError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.content, err, c.want)
		}
	}
	tr := newTree(t)
	tr.o.NovaConf = []string{"/etc/nova/absent.conf"}
	if _, err := Run(tr.o); err == nil || !strings.Contains(err.Error(), "absent.conf") {
		t.Errorf("missing file: %v", err)
	}
}

func TestDetectNovaRelease(t *testing.T) {
	tr := newTree(t)
	if _, err := DetectNovaRelease(tr.root); err == nil {
		t.Error("no package: want an error naming --nova-release")
	}
	tr.mkdir("/usr/lib/python3/dist-packages/nova-26.2.2.egg-info", 0o755)
	if r, err := DetectNovaRelease(tr.root); err != nil || r != nova.Zed {
		t.Errorf("Debian layout: %v %v", r, err)
	}
}

// TestJUnitParsesBack: the XML a CI system reads is well formed and counts.
func TestJUnitParsesBack(t *testing.T) {
	tr := newTree(t)
	tr.write("/etc/nova/nova.conf", strings.Replace(novaConfOK, "kvm", "lxc", 1))
	r := tr.run()
	var b bytes.Buffer
	if err := result.WriteJUnit(&b, "t", Suites([]Report{*r, *r})); err != nil {
		t.Fatal(err)
	}
	var back junitSuites
	if err := xml.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatalf("JUnit does not parse: %v\n%s", err, b.String())
	}
	if len(back.Suites) != 2 || back.Tests != 2*len(r.Checks) || back.Fails != 2*r.Summary.Fail || back.Skips != 2*r.Summary.Skip {
		t.Errorf("counts: %+v vs summary %+v", back, r.Summary)
	}
	failed := 0
	for _, c := range back.Suites[0].Cases {
		if c.Failure != nil {
			failed++
			if c.Name == "VIRT-TYPE" && !strings.Contains(c.Failure.Body, "remedy:") {
				t.Errorf("failure without remedy: %+v", c.Failure)
			}
		}
	}
	if failed != r.Summary.Fail || failed == 0 {
		t.Errorf("failures %d, want %d", failed, r.Summary.Fail)
	}
}

func FuzzNovaConf(f *testing.F) {
	for _, s := range []string{novaConfOK, "[a\n", "x=1\n[b]\ny = 2\n  z\n", "[libvirt]\nswtpm_enabled = maybe\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "n.conf"), []byte(s), 0o644)
		c, err := LoadNovaConf(dir, []string{"/n.conf"}, "")
		if err != nil {
			if !strings.Contains(err.Error(), "n.conf") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		c.Bool("libvirt", "swtpm_enabled", false)
		c.List("libvirt", "supported_tpm_secret_security", nil)
	})
}

func FuzzQemuConf(f *testing.F) {
	for _, s := range []string{"swtpm_user = \"tss\"\n", "a = [\n\"x\",\n]\n", "x = 1 # c\n", "bad\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := filepath.Join(t.TempDir(), "qemu.conf")
		os.WriteFile(p, []byte(s), 0o644)
		q, err := LoadQemuConf("", p)
		if err != nil {
			var ce *ConfError
			if !errors.As(err, &ce) || ce.File != p {
				t.Fatalf("error without file: %v", err)
			}
			return
		}
		q.String("swtpm_user", "tss")
	})
}

func FuzzDomainXML(f *testing.F) {
	f.Add(domainXML(guestUUID, true))
	f.Add("<domain><devices><tpm/></devices></domain>")
	f.Fuzz(func(t *testing.T, s string) {
		ParseDomain(s)
		ParseDomCaps(s)
		ParseSecret(s)
	})
}

// junitSuites is how a CI system reads the XML back.
type junitSuites struct {
	Tests  int `xml:"tests,attr"`
	Fails  int `xml:"failures,attr"`
	Skips  int `xml:"skipped,attr"`
	Suites []struct {
		Cases []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Body string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// TestStateKeptReachesEachGuest: the per-guest output says what the host's
// libvirt and installed Nova code mean for that guest's TPM (the fleet
// side: fleet.TestStateKeptReachesEachGuest).
func TestStateKeptReachesEachGuest(t *testing.T) {
	tr := newTree(t)
	tr.o.Release = nova.Epoxy
	tr.write("/usr/lib/python3/dist-packages/nova-31.0.0.egg-info/PKG-INFO", "")
	tr.write("/usr/lib/python3/dist-packages/nova/virt/libvirt/guest.py", "pass\n")
	tr.addGuest(true, true)
	r := tr.run()
	if r.Facts.StateKept == nil || r.Facts.StateKept.Kept != "no" || !strings.Contains(r.Facts.StateKept.Evidence, "guest.py") {
		t.Fatalf("facts: %+v", r.Facts.StateKept)
	}
	if len(r.VTPMGuests) != 1 || r.VTPMGuests[0].StateKept != "no" {
		t.Errorf("guests: %+v", r.VTPMGuests)
	}
}

// TestResumeOnBootByMode: on 2026.1 a guest's mode comes from its flavor's
// spec in the domain's Nova metadata; only user-mode guests come back in
// ERROR after a host reboot (host and deployment modes resume, live).
func TestResumeOnBootByMode(t *testing.T) {
	withMode := func(uuid, mode string) string {
		x := domainXML(uuid, true)
		meta := `<metadata><nova:instance xmlns:nova="http://openstack.org/xmlns/libvirt/nova/1.1"><nova:flavor name="f"><nova:extraSpecs>` +
			`<nova:extraSpec name="hw:tpm_version">2.0</nova:extraSpec>`
		if mode != "" {
			meta += `<nova:extraSpec name="hw:tpm_secret_security">` + mode + `</nova:extraSpec>`
		}
		meta += `</nova:extraSpecs></nova:flavor></nova:instance></metadata>`
		return strings.Replace(x, "<devices>", meta+"<devices>", 1)
	}
	for _, c := range []struct {
		name   string
		rel    nova.Release
		modes  []string
		status Status
		msg    string
	}{
		{"deployment only", nova.Gazpacho, []string{"deployment"}, Warn, "the 1 host- or deployment-mode guest(s) come back"},
		{"unset is user", nova.Gazpacho, []string{"", "deployment"}, Fail, "with 1 user-mode vTPM guest(s)"},
		{"before 2026.1 the spec is ignored", nova.Epoxy, []string{"deployment"}, Fail, "with 1 user-mode vTPM guest(s)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := newTree(t)
			tr.o.Release = c.rel
			cfg := strings.Replace(novaConfOK, "[DEFAULT]\n", "[DEFAULT]\nresume_guests_state_on_host_boot = true\n", 1)
			if c.rel.HasSecretSecurity() {
				cfg += "[service_user]\nsend_service_user_token = true\nauth_type = password\n"
			}
			tr.write("/etc/nova/nova.conf", cfg)
			for i, m := range c.modes {
				uuid := fmt.Sprintf("0000000%d-1111-2222-3333-444444444444", i)
				tr.hv.domains = append(tr.hv.domains, withMode(uuid, m))
				tr.mkdir("/var/lib/libvirt/swtpm/"+uuid+"/tpm2", 0o700)
			}
			r := tr.run()
			if ch := find(r, "RESUME-ON-BOOT"); ch.Status != c.status || !strings.Contains(ch.Message, c.msg) {
				t.Errorf("%s: %s", ch.Status, ch.Message)
			}
		})
	}
}
