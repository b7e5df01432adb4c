package hostcheck

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/uefi"
)

// descriptor: a QEMU firmware descriptor as Debian's ovmf writes them.
func descriptor(template string, features ...string) string {
	return fmt.Sprintf(`{"interface-types": ["uefi"],
 "mapping": {"device": "flash", "executable": {"filename": "/usr/share/OVMF/OVMF_CODE_4M.secboot.fd", "format": "raw"},
  "nvram-template": {"filename": %q, "format": "raw"}},
 "targets": [{"architecture": "x86_64", "machines": ["pc-q35-*"]}],
 "features": ["%s"], "tags": []}`, template, strings.Join(features, `", "`))
}

// stateless: a descriptor Nova before the bug 2122288 fix cannot read.
const stateless = `{"interface-types": ["uefi"], "mapping": {"device": "flash", "mode": "stateless",
 "executable": {"filename": "/usr/share/OVMF/OVMF.amdsev.fd", "format": "raw"}},
 "targets": [{"architecture": "x86_64", "machines": ["pc-q35-*"]}], "features": ["amd-sev", "secure-boot"]}`

func cert(t *testing.T, cn string, notAfter time.Time) []byte {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Date(2011, 6, 24, 0, 0, 0, 0, time.UTC), NotAfter: notAfter}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

// varsFile: a template enrolling pk and the named KEK and db certificates.
func varsFile(t *testing.T, pk string, kek, db []string) []byte {
	x := func(cn string, owner uefi.GUID) []byte {
		return uefi.SignatureList(uefi.CertX509GUID, owner, cert(t, cn, expiryOf(cn)))
	}
	var vars []uefi.Variable
	if pk != "" {
		vars = append(vars, uefi.Variable{Name: "PK", Vendor: uefi.GlobalVariable, Data: x(pk, uefi.GlobalVariable)})
	}
	var k, d []byte
	for _, cn := range kek {
		k = append(k, x(cn, uefi.MicrosoftOwner)...)
	}
	for _, cn := range db {
		d = append(d, x(cn, uefi.MicrosoftOwner)...)
	}
	if k != nil {
		vars = append(vars, uefi.Variable{Name: "KEK", Vendor: uefi.GlobalVariable, Data: k})
	}
	if d != nil {
		vars = append(vars, uefi.Variable{Name: "db", Vendor: uefi.ImageSecurityDatabase, Data: d})
	}
	vars = append(vars, uefi.Variable{Name: "dbx", Vendor: uefi.ImageSecurityDatabase, Data: uefi.SignatureList(uefi.CertSHA256GUID, uefi.MicrosoftOwner, make([]byte, 32))})
	return uefi.BuildVarStore(vars)
}

func expiryOf(cn string) time.Time {
	switch cn {
	case "Microsoft Corporation KEK CA 2011":
		return time.Date(2026, 6, 24, 20, 51, 0, 0, time.UTC)
	case "Microsoft Corporation UEFI CA 2011":
		return time.Date(2026, 6, 27, 21, 32, 0, 0, time.UTC)
	case "Microsoft Windows Production PCA 2011":
		return time.Date(2026, 10, 19, 18, 51, 0, 0, time.UTC)
	}
	return time.Date(2038, 6, 1, 0, 0, 0, 0, time.UTC)
}

var (
	kek2011 = []string{"Debian UEFI Secure Boot (PK/KEK key)", "Microsoft Corporation KEK CA 2011"}
	db2011  = []string{"Microsoft Windows Production PCA 2011", "Microsoft Corporation UEFI CA 2011"}
	kek2023 = append([]string{"Microsoft Corporation KEK 2K CA 2023"}, kek2011...)
	db2023  = append([]string{"Windows UEFI CA 2023", "Microsoft UEFI CA 2023", "Microsoft Option ROM UEFI CA 2023"}, db2011...)
)

// debianFirmware installs bookworm's three descriptors and two templates.
func debianFirmware(t *testing.T, tr *tree, kek, db []string) {
	tr.write("/usr/share/qemu/firmware/40-edk2-x86_64-secure-enrolled.json", descriptor("/usr/share/OVMF/OVMF_VARS_4M.ms.fd", "acpi-s3", "amd-sev", "enrolled-keys", "requires-smm", "secure-boot"))
	tr.write("/usr/share/qemu/firmware/50-edk2-x86_64-secure.json", descriptor("/usr/share/OVMF/OVMF_VARS_4M.fd", "acpi-s3", "requires-smm", "secure-boot"))
	tr.write("/usr/share/qemu/firmware/60-edk2-x86_64.json", descriptor("/usr/share/OVMF/OVMF_VARS_4M.fd", "acpi-s3"))
	tr.write("/usr/share/OVMF/OVMF_VARS_4M.ms.fd", string(varsFile(t, "Debian UEFI Secure Boot (PK/KEK key)", kek, db)))
	tr.write("/usr/share/OVMF/OVMF_VARS_4M.fd", string(uefi.BuildVarStore(nil)))
}

// installNova writes an installed nova package's files (site-packages).
func installNova(tr *tree, version string, files map[string]string) {
	site := "/usr/lib/python3/dist-packages"
	tr.write(site+"/nova-"+version+".egg-info/PKG-INFO", "")
	for p, c := range files {
		tr.write(site+"/"+p, c)
	}
}

// Texts of the installed files as 31.0.0 and 31.3.0 have them (the lines
// the markers are in).
var (
	nova310 = map[string]string{
		"nova/virt/libvirt/guest.py":  "flags = libvirt.VIR_DOMAIN_UNDEFINE_MANAGED_SAVE\nflags |= libvirt.VIR_DOMAIN_UNDEFINE_NVRAM\n",
		"nova/virt/libvirt/driver.py": "class LibvirtDriver(driver.ComputeDriver):\n        if cleanup_instance_disks:\n            crypto.delete_vtpm_secret(context, instance)\n",
		"nova/virt/libvirt/host.py":   "class Host(object):\n    def get_loader(\n        for loader in self.loaders:\n            return loader['mapping']['nvram-template']['filename']\n        raise exception.UEFINotSupported()\n",
	}
	nova313 = map[string]string{
		"nova/virt/libvirt/guest.py":  "if keep_vtpm:\n    flags |= libvirt.VIR_DOMAIN_UNDEFINE_KEEP_TPM\nif keep_nvram:\n    flags |= libvirt.VIR_DOMAIN_UNDEFINE_KEEP_NVRAM\n",
		"nova/virt/libvirt/driver.py": "class LibvirtDriver(driver.ComputeDriver):\n        if cleanup_instance_disks:\n            # Make sure that the instance directory files were deleted\n",
		"nova/virt/libvirt/host.py":   "class Host(object):\n    def get_loader(\n            try:\n                pass\n            except KeyError:\n                continue\n        raise exception.UEFINotSupported()\n",
	}
)

func TestFirmwareChecks(t *testing.T) {
	defer func(c func() time.Time) { clock = c }(clock)
	clock = func() time.Time { return time.Date(2026, 7, 10, 0, 0, 0, 0, time.UTC) }
	cases := []struct {
		name   string
		setup  func(t *testing.T, tr *tree)
		id     string
		status Status
		msg    string
	}{
		{"no firmware installed", func(t *testing.T, tr *tree) {}, "SECURE-BOOT-CERTS", Skip, "no Secure Boot firmware descriptor"},
		{"bookworm's template: 2011 only", func(t *testing.T, tr *tree) { debianFirmware(t, tr, kek2011, db2011) },
			"SECURE-BOOT-CERTS", Warn, `40-edk2-x86_64-secure-enrolled.json → /usr/share/OVMF/OVMF_VARS_4M.ms.fd: PK "Debian UEFI Secure Boot (PK/KEK key)" (owner 8be4df61-93ca-11d2-aa0d-00e098032b8c)`},
		{"2011 expiry against the clock", func(t *testing.T, tr *tree) { debianFirmware(t, tr, kek2011, db2011) },
			"SECURE-BOOT-CERTS", Warn, "Microsoft Corporation KEK CA 2011 expired 2026-06-24; Microsoft Windows Production PCA 2011 expires 2026-10-19"},
		{"2023 certificates enrolled", func(t *testing.T, tr *tree) { debianFirmware(t, tr, kek2023, db2023) },
			"SECURE-BOOT-CERTS", Pass, "the 2023 Microsoft certificates are enrolled"},
		{"2023 KEK without the option ROM CA", func(t *testing.T, tr *tree) { debianFirmware(t, tr, kek2023, db2023[:2]) },
			"SECURE-BOOT-CERTS", Warn, "missing the 2023 certificates: db Microsoft Option ROM UEFI CA 2023"},
		{"first secure-boot descriptor enrols nothing", func(t *testing.T, tr *tree) {
			debianFirmware(t, tr, kek2011, db2011)
			tr.write("/usr/share/qemu/firmware/10-plain-secure.json", descriptor("/usr/share/OVMF/OVMF_VARS_4M.fd", "secure-boot"))
		}, "SECURE-BOOT-CERTS", Warn, "the template enrols no keys (no PK)"},
		{"libvirt (2026.1): /etc overrides /usr/share by name", func(t *testing.T, tr *tree) {
			tr.o.Release = nova.Gazpacho
			debianFirmware(t, tr, kek2011, db2011)
			tr.write("/etc/qemu/firmware/40-edk2-x86_64-secure-enrolled.json", descriptor("/var/lib/ovmf/VARS_2023.fd", "enrolled-keys", "secure-boot"))
			tr.write("/var/lib/ovmf/VARS_2023.fd", string(varsFile(t, "Site PK", kek2023, db2023)))
		}, "SECURE-BOOT-CERTS", Pass, "/etc/qemu/firmware/40-edk2-x86_64-secure-enrolled.json → /var/lib/ovmf/VARS_2023.fd"},
		{"Nova (2025.1 and older): /usr/share before /etc", func(t *testing.T, tr *tree) {
			debianFirmware(t, tr, kek2011, db2011)
			tr.write("/etc/qemu/firmware/40-edk2-x86_64-secure-enrolled.json", descriptor("/var/lib/ovmf/VARS_2023.fd", "enrolled-keys", "secure-boot"))
			tr.write("/var/lib/ovmf/VARS_2023.fd", string(varsFile(t, "Site PK", kek2023, db2023)))
		}, "SECURE-BOOT-CERTS", Warn, "/usr/share/qemu/firmware/40-edk2-x86_64-secure-enrolled.json → /usr/share/OVMF/OVMF_VARS_4M.ms.fd"},
		{"libvirt: an empty /etc file masks the descriptor", func(t *testing.T, tr *tree) {
			tr.o.Release = nova.Gazpacho
			debianFirmware(t, tr, kek2011, db2011)
			tr.write("/etc/qemu/firmware/40-edk2-x86_64-secure-enrolled.json", "")
		}, "SECURE-BOOT-CERTS", Warn, "50-edk2-x86_64-secure.json → /usr/share/OVMF/OVMF_VARS_4M.fd: the template enrols no keys"},
		{"template path with .. refused", func(t *testing.T, tr *tree) {
			tr.write("/usr/share/qemu/firmware/40-x.json", descriptor("/usr/share/OVMF/../../../../etc/shadow", "secure-boot"))
		}, "SECURE-BOOT-CERTS", Warn, `nvram-template "/usr/share/OVMF/../../../../etc/shadow" is not a clean absolute path; not read`},
		{"template symlinked outside the root stays inside", func(t *testing.T, tr *tree) {
			outside := filepath.Join(t.TempDir(), "VARS.fd")
			if err := os.WriteFile(outside, varsFile(t, "Outside PK", kek2023, db2023), 0o644); err != nil {
				t.Fatal(err)
			}
			tr.write("/usr/share/qemu/firmware/40-x.json", descriptor("/usr/share/OVMF/VARS.fd", "secure-boot"))
			tr.mkdir("/usr/share/OVMF", 0o755)
			if err := os.Symlink(outside, filepath.Join(tr.root, "usr/share/OVMF/VARS.fd")); err != nil {
				t.Fatal(err)
			}
		}, "SECURE-BOOT-CERTS", Warn, "no such file or directory"},
		{"bug 2122288: unguarded Nova fails on a stateless descriptor", func(t *testing.T, tr *tree) {
			debianFirmware(t, tr, kek2011, db2011)
			tr.write("/usr/share/qemu/firmware/30-edk2-amdsev.json", stateless)
			installNova(tr, "31.0.0", nova310)
		}, "SECURE-BOOT-CERTS", Fail, "raises KeyError on /usr/share/qemu/firmware/30-edk2-amdsev.json"},
		{"bug 2122288 fixed: the stateless descriptor is skipped", func(t *testing.T, tr *tree) {
			debianFirmware(t, tr, kek2011, db2011)
			tr.write("/usr/share/qemu/firmware/30-edk2-amdsev.json", stateless)
			installNova(tr, "31.3.0", nova313)
		}, "SECURE-BOOT-CERTS", Warn, "40-edk2-x86_64-secure-enrolled.json →"},
		{"31.0.0 resets NVRAM", func(t *testing.T, tr *tree) { installNova(tr, "31.0.0", nova310) },
			"NVRAM-KEPT", Warn, "carries bug 2131730/1633447: every stop/start and hard reboot recreates a UEFI guest's NVRAM from the template (/usr/lib/python3/dist-packages/nova/virt/libvirt/guest.py lacks VIR_DOMAIN_UNDEFINE_KEEP_NVRAM): db/dbx/KEK updates the guest applied are lost, PCR 7 changes: BitLocker"},
		{"31.3.0 keeps NVRAM", func(t *testing.T, tr *tree) { installNova(tr, "31.3.0", nova313) },
			"NVRAM-KEPT", Pass, "guest.py uses VIR_DOMAIN_UNDEFINE_KEEP_NVRAM"},
		{"2025.1 without code: undecided", func(t *testing.T, tr *tree) { tr.o.Release = nova.Epoxy },
			"NVRAM-KEPT", Warn, "no installed Nova code is readable"},
		{"Zed without code: reset", func(t *testing.T, tr *tree) {}, "NVRAM-KEPT", Warn, "carries bug 2131730/1633447"},
		{"31.0.0 resize revert", func(t *testing.T, tr *tree) { installNova(tr, "31.0.0", nova310) },
			"RESIZE-REVERT", Warn, `carries bug 2125030: resize revert of a vTPM guest ends in ERROR, "Refusing to create an emulated TPM with no secret", when it reverts a move to another host with non-shared instance storage, a resize or a plain cold migration; a same-host resize revert keeps the secret (`},
		{"2025.1 without code: revert undecided, its condition named", func(t *testing.T, tr *tree) { tr.o.Release = nova.Epoxy },
			"RESIZE-REVERT", Warn, "reverts vTPM moves to another host (non-shared instance storage) safely only from 31.3.0/32.2.0 on"},
		{"31.3.0 resize revert", func(t *testing.T, tr *tree) { installNova(tr, "31.3.0", nova313) },
			"RESIZE-REVERT", Pass, "no longer deletes the vTPM secret"},
		{"known bugs of 31.0.0", func(t *testing.T, tr *tree) { installNova(tr, "31.0.0", nova310) },
			"KNOWN-BUGS", Warn, "carries 4 known vTPM/UEFI bug(s): 2118888 ("},
		{"known bugs of 31.3.0", func(t *testing.T, tr *tree) { installNova(tr, "31.3.0", nova313) },
			"KNOWN-BUGS", Pass, "has the fixes for bugs 2118888, 2131730/1633447, 2125030, 2122288"},
		{"known bugs without code", func(t *testing.T, tr *tree) {}, "KNOWN-BUGS", Skip, "no installed Nova code readable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := newTree(t)
			c.setup(t, tr)
			got := find(tr.run(), c.id)
			if got.Status != c.status || !strings.Contains(got.Message, c.msg) {
				t.Fatalf("%s = %s %q\nwant %s containing %q", c.id, got.Status, got.Message, c.status, c.msg)
			}
			if got.Status == Warn || got.Status == Fail {
				if got.Remedy == "" {
					t.Errorf("%s %s without a remedy", c.id, got.Status)
				}
			}
		})
	}
}
