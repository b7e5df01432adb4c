// Package hostcheck answers, for one compute host, whether a vTPM guest
// will boot there, keep its TPM state across stop/start, and whether the
// scheduler is told the truth about it — and merges many hosts' answers.
package hostcheck

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// Status of one check.
type Status string

const (
	Pass Status = "pass"
	Warn Status = "warn"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Check is one finding. Message uses Nova's own text where Nova would
// refuse to start; Remedy says what to do.
type Check struct {
	ID      string `json:"id"`
	Status  Status `json:"status"`
	Message string `json:"message"`
	Remedy  string `json:"remedy,omitempty"`
}

// Report is everything `host check` found on one host; `hosts report` and
// `hosts audit --host-reports` read it back, so its JSON is an interface.
type Report struct {
	Host        string   `json:"host"`
	NovaRelease string   `json:"nova_release"`
	Checks      []Check  `json:"checks"`
	Traits      []string `json:"traits"` // what Nova on this release reports for this host
	// VTPMGuests are the domains with a <tpm> on this host.
	VTPMGuests []Guest  `json:"vtpm_guests"`
	Summary    Summary  `json:"summary"`
	Facts      HostInfo `json:"facts"`
	// AtRisk (fleet audit): the vTPM guests this host would strand if it
	// died, since Nova refuses to evacuate them.
	AtRisk []RiskGuest `json:"at_risk_guests,omitempty"`
}

// RiskGuest is a vTPM guest on a host, as the fleet audit sees it.
type RiskGuest struct {
	ServerID string `json:"server_id"`
	Name     string `json:"name"`
	Owner    string `json:"owner"`
	Project  string `json:"project"`
	Mode     string `json:"mode"`
}

// Guest is a vTPM domain found on the host.
type Guest struct {
	UUID     string `json:"uuid"`
	Name     string `json:"name"`
	Model    string `json:"model"`
	Version  string `json:"version"`
	SecretID string `json:"secret"`
	StateDir string `json:"state_dir"`
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
}

// Summary counts statuses.
type Summary struct {
	Pass int `json:"pass"`
	Warn int `json:"warn"`
	Fail int `json:"fail"`
	Skip int `json:"skip"`
}

func (r *Report) add(c Check) { r.Checks = append(r.Checks, c) }

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

// Failed says whether any check failed.
func (r *Report) Failed() bool { return r.Summary.Fail > 0 }

type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Name    string       `xml:"name,attr"`
	Tests   int          `xml:"tests,attr"`
	Fails   int          `xml:"failures,attr"`
	Skips   int          `xml:"skipped,attr"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name  string      `xml:"name,attr"`
	Tests int         `xml:"tests,attr"`
	Fails int         `xml:"failures,attr"`
	Skips int         `xml:"skipped,attr"`
	Cases []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

// WriteJUnit writes one <testsuite> per host, one <testcase> per check.
// A warning passes (CI systems have no "warn"), its text is kept in
// system-out.
func WriteJUnit(w io.Writer, name string, reports []Report) error {
	out := junitSuites{Name: name}
	for _, r := range reports {
		s := junitSuite{Name: "host " + r.Host}
		for _, c := range r.Checks {
			jc := junitCase{Name: c.ID, ClassName: "vtpmctl.host." + sanitize(r.Host)}
			text := c.Message
			if c.Remedy != "" {
				text += "\nremedy: " + c.Remedy
			}
			switch c.Status {
			case Fail:
				jc.Failure = &junitMessage{Message: c.Message, Body: text}
				s.Fails++
			case Skip:
				jc.Skipped = &junitMessage{Message: c.Message}
				s.Skips++
			default:
				jc.SystemOut = fmt.Sprintf("%s: %s", c.Status, text)
			}
			s.Cases = append(s.Cases, jc)
			s.Tests++
		}
		out.Tests += s.Tests
		out.Fails += s.Fails
		out.Skips += s.Skips
		out.Suites = append(out.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '.' || r == ' ' {
			return '_'
		}
		return r
	}, s)
}

// ReadReport reads one `host check -f json` file.
func ReadReport(path string) (Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Report{}, err
	}
	var r Report
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&r); err != nil {
		return Report{}, fmt.Errorf("%s: not a host check JSON report: %v", path, err)
	}
	if r.Host == "" || r.Checks == nil {
		return Report{}, fmt.Errorf("%s: not a host check JSON report (no host or checks)", path)
	}
	r.Finish()
	return r, nil
}
