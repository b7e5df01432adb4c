package hostcheck

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// QEMU firmware descriptors (docs/interop/firmware.json), in the order of
// precedence both readers use: /usr/share first, /etc after. A system
// libvirtd reads no $XDG_CONFIG_HOME.
var firmwareDirs = []string{"/usr/share/qemu/firmware", "/etc/qemu/firmware"}

type fwFile struct {
	Filename *string `json:"filename"`
}

type fwTarget struct {
	Architecture *string   `json:"architecture"`
	Machines     *[]string `json:"machines"`
}

// fwDescriptor: pointers where Nova's code indexes a key that may be
// absent (a KeyError in Nova before the bug 2122288 fix).
type fwDescriptor struct {
	File           string // path on the audited host
	Size           int
	InterfaceTypes []string    `json:"interface-types"`
	Targets        *[]fwTarget `json:"targets"`
	Features       *[]string   `json:"features"`
	Mapping        *struct {
		Device        string          `json:"device"`
		Mode          nova.SecretMode `json:"mode"`
		Executable    *fwFile         `json:"executable"`
		NvramTemplate *fwFile         `json:"nvram-template"`
	} `json:"mapping"`
	err error // unreadable or not JSON
}

func (d *fwDescriptor) has(feature string) bool {
	return d.Features != nil && contains(*d.Features, feature)
}

// template is the descriptor's nvram-template, "" when it has none.
func (d *fwDescriptor) template() string {
	if d.Mapping == nil || d.Mapping.NvramTemplate == nil || d.Mapping.NvramTemplate.Filename == nil {
		return ""
	}
	return *d.Mapping.NvramTemplate.Filename
}

// matches: a target for arch whose machine globs take machine (fnmatch,
// as Nova and libvirt match them). ok is false when a key Nova indexes
// is missing.
func (d *fwDescriptor) matches(arch, machine string) (match, ok bool) {
	if d.Targets == nil {
		return false, false
	}
	for _, t := range *d.Targets {
		if t.Architecture == nil || t.Machines == nil {
			return false, false
		}
		if *t.Architecture != arch {
			continue
		}
		for _, g := range *t.Machines {
			if m, _ := path.Match(g, machine); m {
				return true, true
			}
		}
	}
	return false, true
}

// loadDescriptors lists the descriptors below root. byName: libvirt's
// merge, where /etc/qemu/firmware/X.json replaces /usr/share's X.json (an
// empty one masks it) and the merged list is sorted by file name. Without
// it, Nova's own list before 2026.1: each directory's files sorted, the
// directories one after the other.
func loadDescriptors(root string, byName bool) []*fwDescriptor {
	var files []string
	names := map[string]string{}
	for _, dir := range firmwareDirs {
		rp, err := resolve(root, dir)
		if err != nil {
			continue
		}
		ents, err := os.ReadDir(rp)
		if err != nil {
			continue
		}
		var here []string
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".json") {
				here = append(here, e.Name())
			}
		}
		sort.Strings(here)
		for _, n := range here {
			files = append(files, dir+"/"+n)
			names[n] = dir + "/" + n
		}
	}
	if byName {
		files = files[:0]
		for _, n := range sortedKeys(names) {
			files = append(files, names[n])
		}
	}
	var out []*fwDescriptor
	for _, f := range files {
		d := &fwDescriptor{File: f}
		b, err := readFile(root, f)
		if err == nil {
			d.Size = len(b)
			if len(b) > 0 {
				err = json.Unmarshal(b, d)
			}
		}
		if err != nil {
			d.err = fmt.Errorf("%s: %v", f, err)
		}
		if byName && err == nil && d.Size == 0 {
			continue // libvirt: an empty file masks the descriptor of that name
		}
		out = append(out, d)
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	k := make([]string, 0, len(m))
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}

// fwChoice is the Secure Boot firmware a new guest would get.
type fwChoice struct {
	Descriptor *fwDescriptor
	Template   string
	By         string // who chose
	// Error: the chooser itself fails (Nova's KeyError, a descriptor that
	// is not JSON): every UEFI guest's spawn fails.
	Error string
}

// chooseByNova follows Host.get_loader(arch, machine, has_secure_boot=True)
// of Nova before 2026.1: the first descriptor whose target matches and
// whose features include secure-boot; enrolled-keys is not asked for.
// guarded: the installed get_loader skips descriptors missing keys (bug
// 2122288 fixed) instead of raising KeyError.
func chooseByNova(ds []*fwDescriptor, arch, machine string, guarded bool) fwChoice {
	c := fwChoice{By: "Nova's Host.get_loader (first descriptor with secure-boot, /usr/share before /etc)"}
	for _, d := range ds {
		if d.err != nil { // jsonutils.load raises: no loader at all
			c.Error = "Nova cannot read the firmware descriptors: " + d.err.Error()
			return c
		}
		m, ok := d.matches(arch, machine)
		if ok && m {
			if d.Features == nil {
				ok = false
			} else if !d.has("secure-boot") {
				continue
			} else if d.template() == "" || d.Mapping.Executable == nil || d.Mapping.Executable.Filename == nil {
				ok = false
			}
		}
		if !ok {
			if guarded {
				continue
			}
			c.Error = fmt.Sprintf("Nova's Host.get_loader raises KeyError on %s (a descriptor without targets, features or nvram-template: bug 2122288): every UEFI guest fails to spawn", d.File)
			return c
		}
		if m {
			c.Descriptor, c.Template = d, d.template()
			return c
		}
	}
	return c
}

// chooseByLibvirt follows libvirt's firmware auto-selection for
// <os firmware='efi'> with the secure-boot feature enabled, as Nova asks
// from 2026.1: a UEFI flash descriptor with an NVRAM template whose target
// matches and whose features include secure-boot, first by file name.
func chooseByLibvirt(ds []*fwDescriptor, arch, machine string) fwChoice {
	c := fwChoice{By: "libvirt's firmware auto-selection (first by file name with secure-boot; /etc overrides /usr/share)"}
	for _, d := range ds {
		if d.err != nil {
			c.Error = "libvirt cannot read the firmware descriptors: " + d.err.Error()
			return c
		}
		if !contains(d.InterfaceTypes, "uefi") || d.Mapping == nil || d.Mapping.Device != "flash" ||
			(d.Mapping.Mode != "" && d.Mapping.Mode != "split") || d.template() == "" || !d.has("secure-boot") {
			continue
		}
		if m, _ := d.matches(arch, machine); m {
			c.Descriptor, c.Template = d, d.template()
			return c
		}
	}
	return c
}

// safeHostPath: a descriptor names an absolute, clean path; anything else
// (relative, "..") is refused rather than guessed at. resolve keeps even
// a clean path's symlinks inside the root.
func safeHostPath(p string) error {
	if !filepath.IsAbs(p) || filepath.Clean(p) != p || strings.Contains(p, "/../") {
		return fmt.Errorf("nvram-template %q is not a clean absolute path; not read", p)
	}
	return nil
}
