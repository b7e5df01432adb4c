package hostcheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/infile"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/packed"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// Status of one check: the one status type of every audit.
type Status = result.Status

const (
	Pass = result.Pass
	Warn = result.Warn
	Fail = result.Fail
	Skip = result.Skip
)

// Check is one finding. Message uses Nova's own text where Nova would
// refuse to start; Remedy says what to do.
type Check struct {
	ID      string `json:"id"`
	Status  Status `json:"status"`
	Message string `json:"message"`
	Remedy  string `json:"remedy,omitempty"`
	// Bug: what a known bug's check decided, for readers of the report
	// (Report.ReportedBug); nil on every other check.
	Bug *BugVerdict `json:"bug,omitempty"`
}

// ReportSchema names the JSON of `host check`; a reader refuses another.
const ReportSchema = "vtpmctl.host-check/1"

// Report is everything `host check` found on one host; `hosts report` and
// `hosts audit --host-reports` read it back, so its JSON is an interface.
type Report struct {
	Schema string `json:"schema,omitempty"` // ReportSchema at the top of a file; checked on read
	Host   string `json:"host"`
	// NovaRelease: the release whose rules the checks applied (its name,
	// "2024.2", in the JSON).
	NovaRelease nova.Release `json:"nova_release"`
	Summary     Summary      `json:"summary"`
	Checks      []Check      `json:"checks"`
	Traits      []string     `json:"traits"` // what Nova on this release reports for this host
	// VTPMGuests are the domains with a <tpm> on this host.
	VTPMGuests []Guest  `json:"vtpm_guests"`
	Facts      HostInfo `json:"facts"`
	// Layout: the deployment layout read, and where its files were.
	Layout *Layout `json:"layout,omitempty"`
}

// Guest is a vTPM domain found on the host.
type Guest struct {
	UUID     string `json:"uuid"`
	Name     string `json:"name"`
	Model    string `json:"model"`
	Version  string `json:"version"`
	SecretID string `json:"secret"`
	StateDir string `json:"state_dir"`
	// Mode: the secret security mode (2026.1+; "" before: legacy user).
	Mode nova.SecretMode `json:"secret_security,omitempty"`
	// StateKept: does this guest's TPM survive stop/start, from the
	// host's libvirt and installed Nova code.
	StateKept TriState `json:"vtpm_state_kept,omitempty"`
	// BitLocker: its NVRAM's certificates, whether TPM state and NVRAM
	// survive here, and the recovery risk that follows (host check only:
	// the fleet copies it from the host's report).
	BitLocker *GuestBitLocker `json:"bitlocker,omitempty"`
	// MigrationReady: can Nova live-migrate it away, as far as this host
	// can tell (mode, release, its persistent libvirt secret); the reasons
	// say why not, and what else was seen (host check only).
	MigrationReady   *bool    `json:"migration_ready,omitempty"`
	MigrationReasons []string `json:"migration_reasons,omitempty"`
}

// HostInfo is what the checks learned, for readers of the JSON.
type HostInfo struct {
	HypervisorHostname string   `json:"hypervisor_hostname,omitempty"`
	LibvirtVersion     string   `json:"libvirt_version,omitempty"`
	QEMUVersion        string   `json:"qemu_version,omitempty"`
	SwtpmVersion       string   `json:"swtpm_version,omitempty"`
	TPMModels          []string `json:"tpm_models,omitempty"`
	TPMVersions        []string `json:"tpm_versions,omitempty"`
	SecureBoot         bool     `json:"secure_boot_loader"`
	StateDir           string   `json:"swtpm_state_dir,omitempty"`
	// StateKept: does a guest's TPM survive stop/start and hard reboot here.
	StateKept *StateKept `json:"vtpm_state_kept,omitempty"`
	// SwtpmFeatures: swtpm socket --print-capabilities' features;
	// SwtpmMigration: cmdarg-migration among them (Unknown: not asked).
	SwtpmFeatures  []string `json:"swtpm_features,omitempty"`
	SwtpmMigration TriState `json:"swtpm_migration,omitempty"`
	// Libtpms: the installed libtpms version ("" unknown): a destination
	// with an older one cannot take this host's TPM state.
	Libtpms string `json:"libtpms_version,omitempty"`
	// SecretsKept (kolla): libvirt's persistent secrets survive a
	// nova_libvirt re-create.
	SecretsKept TriState `json:"libvirt_secrets_survive_recreate,omitempty"`
	// Cell: CellFingerprint of [DEFAULT] transport_url ("" unknown): Nova
	// migrates only between hosts of one cell, and they share its queue.
	// CellHosts: CellHosts of the same URL, one hash per broker node and
	// virtual host; compare with SameCell, which falls back to Cell for
	// reports without them.
	Cell      string   `json:"cell,omitempty"`
	CellHosts []string `json:"cell_hosts,omitempty"`
}

// Summary counts statuses.
type Summary struct {
	Pass int `json:"pass"`
	Warn int `json:"warn"`
	Fail int `json:"fail"`
	Skip int `json:"skip"`
}

// Finish computes the summary.
func (r *Report) Finish() {
	r.Summary = Summary{}
	for _, c := range r.Checks {
		switch c.Status {
		case Pass:
			r.Summary.Pass++
		case Warn:
			r.Summary.Warn++
		case Fail:
			r.Summary.Fail++
		case Skip:
			r.Summary.Skip++
		}
	}
	sort.Strings(r.Traits)
}

// Table is the report as the table output shows it.
func (r *Report) Table() output.Table {
	t := output.Table{Key: "checks", Columns: []string{"status", "id", "message", "remedy"}, Verdict: "status", Wrap: []string{"message", "remedy"},
		Footer: []string{fmt.Sprintf("host %s (Nova %s): %d pass, %d warn, %d fail, %d skip", r.Host, r.NovaRelease,
			r.Summary.Pass, r.Summary.Warn, r.Summary.Fail, r.Summary.Skip)}}
	for _, c := range r.Checks {
		t.Rows = append(t.Rows, output.Record{{Name: "status", Value: string(c.Status)}, {Name: "id", Value: c.ID},
			{Name: "message", Value: c.Message}, {Name: "remedy", Value: c.Remedy}})
	}
	if l := r.Layout; l != nil {
		t.Footer = append(t.Footer, fmt.Sprintf("layout %s (%s): nova.conf %s, qemu.conf %s, swtpm state %s", l.Name, l.Evidence, strings.Join(l.NovaConf, " + "), l.QemuConf, l.StateDir))
	}
	return t
}

// Failed says whether any check failed.
func (r *Report) Failed() bool { return r.Summary.Fail > 0 }

// Suites are the reports as JUnit suites: one per host.
func Suites(reports []Report) []result.Suite {
	out := make([]result.Suite, 0, len(reports))
	for _, r := range reports {
		su := result.Suite{Name: "host " + r.Host, Class: "vtpmctl.host." + result.ClassName(r.Host)}
		for _, c := range r.Checks {
			su.Cases = append(su.Cases, result.Case{Name: c.ID, Status: c.Status, Message: c.Message, Remedy: c.Remedy})
		}
		out = append(out, su)
	}
	return out
}

// ReadReport reads one `host check -f json` file. It is a file someone
// handed us: a FIFO or a link to /dev/zero is refused, not waited on or
// read for ever.
func ReadReport(path string) (Report, error) {
	data, err := infile.ReadFile(path, 0)
	if err != nil {
		return Report{}, err
	}
	var r Report
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&r); err != nil {
		return Report{}, fmt.Errorf("%s: not a host check JSON report: %v", path, err)
	}
	if err := result.CheckSchema(path, r.Schema, ReportSchema); err != nil {
		return Report{}, err
	}
	if r.Host == "" || r.Checks == nil {
		return Report{}, fmt.Errorf("%s: not a host check JSON report (no host or checks)", path)
	}
	// a domain's UUID is matched to its Nova server's: in Nova's form
	for i, g := range r.VTPMGuests {
		if id, ok := packed.CanonicalUUID(g.UUID); ok {
			r.VTPMGuests[i].UUID = id
		}
	}
	r.Finish()
	return r, nil
}

// ReadReports reads host check reports. Two reports of the same host
// (Nova's service host) are an error: which one is current is the user's
// call, and silently keeping the later hid the other's findings. Two
// services on one machine share libvirt's host name: not a clash.
func ReadReports(paths []string) ([]Report, error) {
	var out []Report
	seen := map[string]string{} // service host → file that reports it
	for _, p := range paths {
		r, err := ReadReport(p)
		if err != nil {
			return nil, err
		}
		if prev, ok := seen[r.Host]; ok && prev != p {
			return nil, fmt.Errorf("%s and %s both report host %s: keep one", prev, p, r.Host)
		}
		seen[r.Host] = p
		out = append(out, r)
	}
	return out, nil
}

// ErrNoReports: a report directory holds no *.json file.
var ErrNoReports = errors.New("no *.json report in it")

// ReadReportDir reads every *.json host check report in dir (ReadReports).
func ReadReportDir(dir string) ([]Report, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		return nil, ErrNoReports
	}
	return ReadReports(files)
}
