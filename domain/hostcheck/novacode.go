package hostcheck

import (
	"path/filepath"
	"strings"
)

// novaSitePatterns are where an installed nova package's metadata sits:
// Debian, Ubuntu, RDO, pip, and the kolla, OpenStack-Helm and
// OpenStack-Ansible virtualenvs.
var novaSitePatterns = []string{"/usr/lib/python3*/dist-packages/nova-*-info", "/usr/lib/python3*/site-packages/nova-*-info",
	"/usr/local/lib/python3*/*-packages/nova-*-info", "/var/lib/kolla/venv/lib/python3*/site-packages/nova-*-info",
	"/var/lib/openstack/lib/python3*/site-packages/nova-*-info", "/openstack/venvs/nova-*/lib/python3*/site-packages/nova-*-info"}

// novaMetadata lists the installed nova packages' metadata directories,
// as paths on the audited host (inside the root).
func novaMetadata(root string) []string {
	var found []string
	for _, pat := range novaSitePatterns {
		m, _ := filepath.Glob(under(root, pat))
		for _, p := range m {
			if underRoot(root) {
				p = "/" + strings.TrimPrefix(strings.TrimPrefix(p, root), "/")
			}
			found = append(found, p)
		}
	}
	return found
}

// StateKept says whether a guest's vTPM state survives a stop/start or a
// hard reboot on a host, and how that is known.
type StateKept struct {
	Kept     TriState `json:"kept"`
	Evidence string   `json:"evidence"`
}

// keepTPMMarker is what the bug 2118888 fix added to Nova's libvirt guest
// code: the undefine flag that keeps the TPM state (2026.1, backported to
// 2025.1 and 2025.2 point releases; no release before 2025.1 has it).
const keepTPMMarker = "VIR_DOMAIN_UNDEFINE_KEEP_TPM"

// installedNovaFile reads one file of the installed nova package (rel is
// relative to its site-packages directory), from the first installation
// whose copy is readable.
func installedNovaFile(root, rel string) (b []byte, path string, ok bool) {
	for _, meta := range novaMetadata(root) {
		p := filepath.Join(filepath.Dir(meta), rel)
		b, err := readFile(root, p)
		if err != nil {
			continue
		}
		return b, p, true
	}
	return nil, "", false
}
