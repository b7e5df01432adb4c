package hostcheck

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// MigrationFacts: what a live migration of this host's vTPM guests
// depends on besides Nova's API rules, read by gather.
type MigrationFacts struct {
	// SwtpmFeatures: `swtpm socket --print-capabilities`' "features";
	// nil when not run (under --root) or unreadable (CapsErr).
	SwtpmFeatures []string
	CapsErr       string
	// Libtpms: the version in the installed library's file name
	// (libtpms.so.0.9.6 → "0.9.6") in libvirtd's filesystem; "" unknown.
	Libtpms string
	// SecretsKept (kolla only): do libvirt's persistent secrets
	// (/etc/libvirt/secrets in the nova_libvirt container) survive a
	// container re-create; "" on other layouts.
	SecretsKept TriState
	SecretsWhy  string
}

// swtpmMigrationFeature is the capability libvirt asks swtpm for before
// it migrates a TPM whose state is on shared storage (qemu_tpm.c
// qemuTPMCanMigrateSharedStorage; qemu_migration.c refuses with "the
// running swtpm does not support migration with shared storage"). State
// on local storage travels in QEMU's migration stream and needs no
// feature; Nova's state directory (/var/lib/libvirt/swtpm) is local
// unless an operator shares it.
const swtpmMigrationFeature = "cmdarg-migration"

// parseSwtpmCaps reads `swtpm socket --print-capabilities`' JSON
// ({"type": "swtpm", "features": [...], "version": "0.9.0"}).
func parseSwtpmCaps(out string) ([]string, error) {
	var c struct {
		Features []string `json:"features"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &c); err != nil {
		return nil, fmt.Errorf("swtpm --print-capabilities: not JSON: %v", err)
	}
	if c.Features == nil {
		c.Features = []string{}
	}
	return c.Features, nil
}

// libtpmsDirs: where distributions install libtpms (Debian/Ubuntu
// multiarch, RHEL/SUSE lib64).
var libtpmsDirs = []string{"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"}

// findLibtpms: the highest libtpms.so.X.Y.Z below root ("" none found).
func findLibtpms(root string) string {
	var found []string
	for _, d := range libtpmsDirs {
		// resolved inside root: an absolute link (usr/lib64 -> /usr/lib)
		// must not list the auditing machine's libtpms
		rd, err := resolve(root, d)
		if err != nil {
			continue
		}
		m, _ := filepath.Glob(filepath.Join(rd, "libtpms.so.*.*.*"))
		for _, p := range m {
			found = append(found, strings.TrimPrefix(filepath.Base(p), "libtpms.so."))
		}
	}
	if len(found) == 0 {
		return ""
	}
	sort.Slice(found, func(i, j int) bool { return CompareVersions(found[i], found[j]) < 0 })
	return found[len(found)-1]
}

// CompareVersions compares dotted numeric versions ("0.9.6" < "0.10.0");
// a part that is not a number compares as 0.
func CompareVersions(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) || i < len(pb); i++ {
		var x, y int
		if i < len(pa) {
			fmt.Sscanf(pa[i], "%d", &x)
		}
		if i < len(pb) {
			fmt.Sscanf(pb[i], "%d", &y)
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// kollaSecretsVolumes: where Docker and Podman would keep kolla-ansible's
// named volume nova_libvirt_secrets (mounted at /etc/libvirt/secrets in
// nova_libvirt by the releases that have it; later ones dropped it).
var kollaSecretsVolumes = []string{"/var/lib/docker/volumes/nova_libvirt_secrets/_data", "/var/lib/containers/storage/volumes/nova_libvirt_secrets/_data"}

// kollaSecretsKept decides from the host's files whether libvirt's
// persistent secrets survive a re-create of the nova_libvirt container.
func kollaSecretsKept(root string) (TriState, string) {
	for _, v := range kollaSecretsVolumes {
		if _, err := statIn(root, v); err == nil {
			return Yes, "volume nova_libvirt_secrets (" + v + ") holds /etc/libvirt/secrets"
		}
	}
	for _, v := range kollaSecretsVolumes {
		if _, err := statIn(root, filepath.Dir(filepath.Dir(v))); err == nil {
			return No, "no volume nova_libvirt_secrets in " + filepath.Dir(filepath.Dir(v)) +
				": /etc/libvirt/secrets is in the nova_libvirt container's own layer (unless bind-mounted), and a re-create loses every host-mode secret"
		}
	}
	return Unknown, "neither Docker's nor Podman's volume directory is readable here, so where /etc/libvirt/secrets lives cannot be told from files"
}

// gatherMigration reads the migration facts; runCaps is nil under --root.
func gatherMigration(f *Facts, runCaps func(bin string) (string, error)) MigrationFacts {
	m := MigrationFacts{}
	if f.Layout.Unread["libvirt"] == "" {
		m.Libtpms = findLibtpms(f.LibvirtRoot)
	}
	if f.Layout.Name == LayoutKolla {
		m.SecretsKept, m.SecretsWhy = kollaSecretsKept(f.Root)
	}
	bin := ""
	if p := f.Binaries.Paths[""]; p != nil {
		bin = p["swtpm"]
	}
	if runCaps != nil && bin != "" {
		out, err := runCaps(bin)
		if err == nil {
			m.SwtpmFeatures, err = parseSwtpmCaps(out)
		}
		if err != nil {
			m.CapsErr = err.Error()
		}
	}
	return m
}

// swtpmMigration: whether swtpm can migrate; Unknown when not asked.
func (m MigrationFacts) swtpmMigration() TriState {
	return triOf(contains(m.SwtpmFeatures, swtpmMigrationFeature), m.SwtpmFeatures != nil)
}

// guestReadiness: can Nova live-migrate this guest away, as far as this
// host can tell (the destination's side is the fleet audit's). Only
// host mode on 2026.1+ passes the API (reject_legacy_vtpm_live_migration);
// its source compute then reads the persistent libvirt secret
// (driver.py _add_vtpm_secret_to_live_migrate_data) and fails with
// VTPMSecretNotFound when it is missing.
func guestReadiness(f *Facts, g Guest) (bool, []string) {
	if !f.Release.HostModeLiveMigration() {
		return false, []string{fmt.Sprintf("Nova %s refuses live migration of every vTPM guest (host mode from 2026.1)", f.Release)}
	}
	if g.Mode != nova.SecretHost {
		mode := g.Mode
		if mode == "" {
			mode = nova.SecretUser
		}
		return false, []string{fmt.Sprintf("%s mode: Nova refuses live migration (only host mode)", mode)}
	}
	ready, why := true, []string{}
	if !hostModeSecret(f.Libvirt.Secrets, g.UUID) {
		ready = false
		why = append(why, "no persistent libvirt secret for it here: the migration fails with 'TPM secret was not found. Try hard-rebooting the instance to recover.'")
	}
	if f.Migration.swtpmMigration() == No {
		why = append(why, "the running swtpm does not support migration (no "+swtpmMigrationFeature+"): libvirt refuses only when the TPM state is on shared storage")
	}
	if k := f.Migration.SecretsKept; k == No || k == Unknown {
		why = append(why, "its secret survives a nova_libvirt re-create: "+string(k)+" ("+f.Migration.SecretsWhy+")")
	}
	return ready, why
}

// checkMigration: the host's side of live-migrating its vTPM guests.
func checkMigration(f *Facts) []Check {
	var out []Check
	switch m := f.Migration; m.swtpmMigration() {
	case Yes:
		out = append(out, one("SWTPM-MIGRATION", Pass, "swtpm supports migration ("+swtpmMigrationFeature+")", "")...)
	case No:
		out = append(out, one("SWTPM-MIGRATION", Warn, "the running swtpm does not support migration ("+swtpmMigrationFeature+" missing from swtpm socket --print-capabilities): libvirt refuses to live-migrate a vTPM whose state is on shared storage",
			"upgrade swtpm to 0.8 or later")...)
	default:
		why := "not asked (swtpm is not run under --root or when absent)"
		if m.CapsErr != "" {
			why = m.CapsErr
		}
		out = append(out, one("SWTPM-MIGRATION", Skip, "swtpm's migration support unknown: "+why, "")...)
	}
	if s := f.Migration.SecretsKept; s != "" {
		st := map[TriState]Status{Yes: Pass, No: Fail, Unknown: Skip}[s]
		if s == No && !hasHostModeGuest(f) {
			st = Warn
		}
		out = append(out, one("LIBVIRT-SECRETS-KEPT", st, "host-mode secrets survive a nova_libvirt re-create: "+string(s)+" ("+f.Migration.SecretsWhy+")",
			map[TriState]string{No: "add a volume for /etc/libvirt/secrets to nova_libvirt (kolla-ansible: nova_libvirt_secrets) before re-creating it"}[s])...)
	}
	if !f.Libvirt.reachable() || !f.Release.HostModeLiveMigration() {
		return out
	}
	var notReady []string
	hostGuests := 0
	for _, g := range f.Guests {
		if g.Mode != nova.SecretHost {
			continue
		}
		hostGuests++
		if ok, _ := guestReadiness(f, g); !ok {
			notReady = append(notReady, g.Name)
		}
	}
	switch {
	case hostGuests == 0:
	case len(notReady) == 0:
		out = append(out, one("MIGRATION-READY", Pass, fmt.Sprintf("%d host-mode guest(s) have their persistent libvirt secret here", hostGuests), "")...)
	default:
		out = append(out, one("MIGRATION-READY", Fail, fmt.Sprintf("%d of %d host-mode guest(s) cannot be live-migrated: no persistent libvirt secret (%s)", len(notReady), hostGuests, strings.Join(notReady, ", ")),
			"hard-reboot each (Nova re-creates the secret), then migrate")...)
	}
	return out
}

func hasHostModeGuest(f *Facts) bool {
	for _, g := range f.Guests {
		if g.Mode == nova.SecretHost {
			return true
		}
	}
	return false
}
