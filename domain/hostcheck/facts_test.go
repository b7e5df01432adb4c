package hostcheck

import (
	"errors"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// confText is nova.conf parsed from text (no file).
func confText(t *testing.T, text string) *NovaConf {
	t.Helper()
	c := &NovaConf{values: map[string]map[string]confValue{}}
	if err := c.parse("/etc/nova/nova.conf", []byte(text)); err != nil {
		t.Fatal(err)
	}
	return c
}

func tssAccounts() accounts {
	return accounts{users: map[string]int{"root": 0, "tss": 59}, groups: map[string]int{"root": 0, "tss": 59},
		byUID: map[int]string{0: "root", 59: "tss"}, byGID: map[int]string{0: "root", 59: "tss"}}
}

func mustDomain(t *testing.T, x string) *Domain {
	t.Helper()
	d, err := ParseDomain(x)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// healthyFacts: a Zed host where every check passes or skips, as a
// literal; each case below changes one fact.
func healthyFacts(t *testing.T) Facts {
	caps, err := ParseDomCaps(mustRead(t, "testdata/domcaps-libvirt9-q35.xml"))
	if err != nil {
		t.Fatal(err)
	}
	bins := map[string]string{"swtpm": "/usr/bin/swtpm", "swtpm_setup": "/usr/bin/swtpm_setup", "swtpm_ioctl": "/usr/bin/swtpm_ioctl"}
	return Facts{
		Layout:  Layout{Name: LayoutPackages, QemuConf: "/etc/libvirt/qemu.conf"},
		Conf:    confText(t, novaConfOK),
		Release: nova.Zed, Host: "cmp1",
		Accounts: tssAccounts(), LibvirtAccounts: tssAccounts(),
		Libvirt:  LibvirtFacts{URI: "qemu:///system", Connected: true, LibV: V(9, 0, 0), QemuV: V(7, 2, 0), Caps: caps, Q35Caps: caps},
		Binaries: BinaryFacts{Paths: map[string]map[string]string{"": bins}},
		StateDir: PathFacts{Path: "/var/lib/libvirt/swtpm", Exists: true, UID: 0, Perm: 0o711},
		LocalCA:  PathFacts{Path: "/var/lib/swtpm-localca", Exists: true, UID: 59, GID: 59, Perm: 0o750},
	}
}

// TestChecksOnFactLiterals: each check judged on facts built in memory,
// without a file or a libvirt.
func TestChecksOnFactLiterals(t *testing.T) {
	guest := func(t *testing.T, f *Facts, encrypted bool) {
		f.Libvirt.Domains = append(f.Libvirt.Domains, mustDomain(t, domainXML(guestUUID, encrypted)))
		f.GuestState = map[string]bool{"/var/lib/libvirt/swtpm/" + guestUUID + "/tpm2": true}
	}
	cases := []struct {
		name   string
		change func(t *testing.T, f *Facts)
		id     string
		status Status
		msg    string
	}{
		{"healthy", func(t *testing.T, f *Facts) {}, "TRAITS", Pass, "Nova zed reports: COMPUTE_SECURITY_TPM_1_2 COMPUTE_SECURITY_TPM_2_0 COMPUTE_SECURITY_UEFI_SECURE_BOOT"},
		{"no nova.conf at all", func(t *testing.T, f *Facts) { f.Conf = nil }, "NOVA-CONF", Fail, "no nova.conf file found"},
		{"vTPM off by default", func(t *testing.T, f *Facts) { f.Conf = confText(t, "[libvirt]\nvirt_type = kvm\n") }, "SWTPM-ENABLED", Fail, "swtpm_enabled is False (default)"},
		{"other driver, vTPM on", func(t *testing.T, f *Facts) {
			f.Conf = confText(t, "[DEFAULT]\ncompute_driver = fake.FakeDriver\n"+novaConfOK[10:])
		},
			"COMPUTE-DRIVER", Fail, "compute_driver = fake.FakeDriver"},
		{"other driver, vTPM off: a warning", func(t *testing.T, f *Facts) { f.Conf = confText(t, "[DEFAULT]\ncompute_driver = fake.FakeDriver\n") },
			"COMPUTE-DRIVER", Warn, "only the libvirt driver"},
		{"swtpm user missing", func(t *testing.T, f *Facts) { f.Accounts = accounts{} }, "SWTPM-USER", Fail, "expected 'tss'."},
		{"swtpm user present", func(t *testing.T, f *Facts) {}, "SWTPM-USER", Pass, "[libvirt] swtpm_user tss exists (uid 59)"},
		{"qemu.conf absent, nova.conf says swtpm", func(t *testing.T, f *Facts) { f.Conf = confText(t, novaConfOK+"swtpm_user = swtpm\n") },
			"SWTPM-USER-LIBVIRT", Fail, "nova.conf says swtpm runs as swtpm:tss but libvirt (/etc/libvirt/qemu.conf (absent: libvirt's defaults)) runs it as tss:tss"},
		{"2026.1 mode list with a typo", func(t *testing.T, f *Facts) {
			f.Release = nova.Gazpacho
			f.Conf = confText(t, novaConfOK+"supported_tpm_secret_security = user,hots\n")
		}, "SECRET-SECURITY", Warn, `has "hots", which Nova ignores`},
		{"2026.1 deployment mode without service user", func(t *testing.T, f *Facts) { f.Release = nova.Gazpacho }, "SERVICE-USER", Fail, "(missing auth_type, auth_url)"},
		{"swtpm and swtpm_setup missing, Zed", func(t *testing.T, f *Facts) {
			f.Binaries.Paths[""] = map[string]string{"swtpm_ioctl": "/usr/bin/swtpm_ioctl"}
		}, "SWTPM-BINARIES", Fail, "vTPM support is configured but the 'swtpm' and 'swtpm_setup' binaries could not be found on PATH."},
		{"libvirt unreachable", func(t *testing.T, f *Facts) {
			f.Libvirt = LibvirtFacts{URI: "qemu:///system", Err: errors.New("no socket")}
		},
			"LIBVIRT", Fail, "libvirt at qemu:///system not reachable: no socket"},
		{"libvirt unreachable: guests skipped", func(t *testing.T, f *Facts) { f.Libvirt = LibvirtFacts{Err: errNotAsked} }, "VTPM-GUESTS", Skip, "libvirt not reachable"},
		{"libvirt below 8.9", func(t *testing.T, f *Facts) { f.Libvirt.LibV = V(8, 0, 0) }, "KEEP-TPM-STATE", Fail, "libvirt 8.0.0 < 8.9.0"},
		{"installed guest.py has the fix", func(t *testing.T, f *Facts) {
			f.NovaCode = map[string]NovaSource{"nova/virt/libvirt/guest.py": {Path: "/x/guest.py", Src: []byte(keepTPMMarker)}}
		}, "KEEP-TPM-STATE", Pass, "(/x/guest.py uses VIR_DOMAIN_UNDEFINE_KEEP_TPM)"},
		{"state dir world-writable", func(t *testing.T, f *Facts) { f.StateDir.Perm = 0o777 }, "SWTPM-STATE-DIR", Fail, "writable by group or others (0777)"},
		{"state dir gone with a guest", func(t *testing.T, f *Facts) { f.StateDir.Exists = false; guest(t, f, true) }, "SWTPM-STATE-DIR", Fail, "is missing but vTPM guests are defined"},
		{"local CA not writable", func(t *testing.T, f *Facts) { f.LocalCA.Perm = 0o500 }, "SWTPM-LOCALCA", Fail, "(tss:tss 0500) is not writable"},
		{"AppArmor on without the swtpm profile", func(t *testing.T, f *Facts) { f.AppArmor = AppArmorFacts{Known: true, Enabled: true} }, "APPARMOR", Warn, "usr.bin.swtpm is missing"},
		{"guest unencrypted", func(t *testing.T, f *Facts) { guest(t, f, false) }, "VTPM-GUESTS", Fail, "instance-00000001: no <encryption secret=…>"},
		{"guest with vTPM off", func(t *testing.T, f *Facts) {
			f.Conf = confText(t, "[libvirt]\nswtpm_enabled = false\n")
			guest(t, f, true)
		},
			"VTPM-GUESTS", Fail, "This host has instances with the vTPM feature enabled"},
		{"resume on boot, one user-mode guest", func(t *testing.T, f *Facts) {
			f.Conf = confText(t, "[DEFAULT]\nresume_guests_state_on_host_boot = on\n"+novaConfOK[10:])
			guest(t, f, true)
		}, "RESUME-ON-BOOT", Fail, "with 1 user-mode vTPM guest(s)"},
		{"2024.2 without domain capabilities: traits unknown", func(t *testing.T, f *Facts) {
			f.Release = nova.Dalmatian
			f.Libvirt.Caps, f.Libvirt.CapsErr = nil, errors.New("denied")
		}, "TRAITS", Skip, "which libvirt did not give"},
		{"known bugs of an old guest.py", func(t *testing.T, f *Facts) {
			f.NovaCode = map[string]NovaSource{"nova/virt/libvirt/guest.py": {Path: "/x/guest.py", Src: []byte("pass")}}
		}, "KNOWN-BUGS", Warn, "carries 2 known vTPM/UEFI bug(s): 2118888"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := healthyFacts(t)
			c.change(t, &f)
			f.derive()
			r := evaluate(&f)
			got := find(r, c.id)
			if got.Status != c.status || !strings.Contains(got.Message, c.msg) {
				t.Errorf("%s = %s %q\nwant %s containing %q", c.id, got.Status, got.Message, c.status, c.msg)
			}
			if (got.Status == Fail) != r.Failed() && c.status == Fail {
				t.Errorf("report not failed")
			}
		})
	}
}

// TestChecksOrderIndependent: every check gives the same findings
// whatever ran before it, in reversed and shuffled orders over the same
// facts, and no check changes the facts. Before the facts split the list
// could not be reordered: reversing it flipped 15 of TestFailingHosts'
// verdicts (checks set s.enabled, s.user, s.modes … for later ones).
func TestChecksOrderIndependent(t *testing.T) {
	// each host is a builder: the same facts, afresh at every call
	hosts := map[string]func(t *testing.T) func() *Facts{
		"fixture tree, 2026.1, guests and an orphan secret": func(t *testing.T) func() *Facts {
			tr := newTree(t)
			tr.o.Release = nova.Gazpacho
			tr.write("/etc/nova/nova.conf", strings.Replace(novaConfOK, "[DEFAULT]\n", "[DEFAULT]\nresume_guests_state_on_host_boot = true\n", 1)+"supported_tpm_secret_security = user,host\n")
			tr.addGuest(true, false)
			tr.hv.secrets = []string{`<secret ephemeral='no' private='no'><uuid>bbbb</uuid><usage type='vtpm'><name>gone</name></usage></secret>`}
			return func() *Facts {
				f, err := gather(tr.o)
				if err != nil {
					t.Fatal(err)
				}
				f.Now = clock0
				return f
			}
		},
		"literal, vTPM off with an unencrypted guest": func(t *testing.T) func() *Facts {
			return func() *Facts {
				f := healthyFacts(t)
				f.Conf = confText(t, "[libvirt]\nswtpm_enabled = no\n")
				f.Libvirt.Domains = []*Domain{mustDomain(t, domainXML(guestUUID, false))}
				f.derive()
				return &f
			}
		},
	}
	for name, host := range hosts {
		t.Run(name, func(t *testing.T) {
			build := host(t)
			want := map[string][]Check{}
			for _, c := range checks {
				want[c.name] = c.run(build()) // each alone, on its own facts
			}
			orders := [][]check{reversed(checks)}
			rng := rand.New(rand.NewSource(21))
			for i := 0; i < 5; i++ {
				o := append([]check{}, checks...)
				rng.Shuffle(len(o), func(a, b int) { o[a], o[b] = o[b], o[a] })
				orders = append(orders, o)
			}
			for _, order := range orders {
				f := build()
				for _, c := range order {
					if got := c.run(f); !reflect.DeepEqual(got, want[c.name]) {
						t.Errorf("%s after %s: %+v, alone %+v", c.name, checkNames(order), got, want[c.name])
					}
				}
				if !reflect.DeepEqual(f, build()) {
					t.Errorf("the checks changed the facts (order %s)", checkNames(order))
				}
			}
		})
	}
}

var clock0 = time.Date(2026, 7, 10, 0, 0, 0, 0, time.UTC)

func reversed(l []check) []check {
	out := make([]check, len(l))
	for i, c := range l {
		out[len(l)-1-i] = c
	}
	return out
}

func checkNames(l []check) string {
	var n []string
	for _, c := range l {
		n = append(n, c.name)
	}
	return strings.Join(n, ",")
}

// TestInputErrorsAreTyped: the release errors say what is missing (the
// package, or a release too new), the layout error which layout, and
// each leaves the flag to the caller.
func TestInputErrorsAreTyped(t *testing.T) {
	tr := newTree(t)
	tr.o.Release = nova.ReleaseUnknown
	_, err := Run(tr.o)
	var rn *ReleaseNotFoundError
	if !errors.As(err, &rn) || rn.Root != tr.root || rn.Major != 0 || strings.Contains(err.Error(), "--") {
		t.Errorf("no package: %#v", err)
	}
	tr.mkdir("/usr/lib/python3/dist-packages/nova-99.0.0.dist-info", 0o755)
	_, err = Run(tr.o)
	if !errors.As(err, &rn) || rn.Major != 99 || rn.Package != "/usr/lib/python3/dist-packages/nova-99.0.0.dist-info" || strings.Contains(err.Error(), "--") {
		t.Errorf("too new: %#v", err)
	}
	var le *LayoutError
	if _, err := Run(Options{Root: t.TempDir(), Layout: "juju", Release: nova.Zed}); !errors.As(err, &le) || le.Name != "juju" || strings.Contains(err.Error(), "--") {
		t.Errorf("layout: %#v", err)
	}
}
