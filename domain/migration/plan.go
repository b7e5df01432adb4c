package migration

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// Plan is the migration plan file (version 1); examples/plan.yaml
// documents every field.
type Plan struct {
	Version int          `yaml:"version"`
	Source  PlanSource   `yaml:"source,omitempty"`
	Images  []PlanImage  `yaml:"images"`
	Flavors []PlanFlavor `yaml:"flavors"`
	VMs     []PlanVM     `yaml:"vms"`
}

// PlanSource records where the plan came from.
type PlanSource struct {
	RVTools  string   `yaml:"rvtools,omitempty"`
	Govc     []string `yaml:"govc,omitempty"`
	Imported string   `yaml:"imported,omitempty"`
	// NovaRelease is the release the import targeted: its flavor specs
	// and checklist hold for that release's Nova.
	NovaRelease nova.Release `yaml:"nova_release,omitempty"`
}

// PlanImage is an image whose properties the plan sets.
type PlanImage struct {
	Name       string            `yaml:"name"` // name or ID in Glance
	TPMVersion string            `yaml:"tpm_version,omitempty"`
	TPMModel   string            `yaml:"tpm_model,omitempty"`
	Windows    bool              `yaml:"windows,omitempty"`
	Properties map[string]string `yaml:"properties,omitempty"`
}

// PlanFlavor is a flavor the plan needs.
type PlanFlavor struct {
	Name           string          `yaml:"name"`
	VCPUs          int             `yaml:"vcpus"`
	RAM            int             `yaml:"ram"`  // MiB
	Disk           int             `yaml:"disk"` // GiB
	Public         *bool           `yaml:"public,omitempty"`
	TPMVersion     string          `yaml:"tpm_version,omitempty"`
	TPMModel       string          `yaml:"tpm_model,omitempty"`
	SecretSecurity nova.SecretMode `yaml:"secret_security,omitempty"`
	Proposed       bool            `yaml:"proposed,omitempty"` // no catalogue flavor fit
}

// PlanVM is one source VM and its target.
type PlanVM struct {
	Name         string   `yaml:"name"`
	VCenter      string   `yaml:"vcenter,omitempty"`
	VCenterUUID  string   `yaml:"vcenter_uuid,omitempty"`
	MoRef        string   `yaml:"vm_id,omitempty"`
	BIOSUUID     string   `yaml:"bios_uuid,omitempty"`
	GuestOS      string   `yaml:"guest_os"`
	GuestID      string   `yaml:"guest_id,omitempty"`
	Firmware     string   `yaml:"firmware"`    // efi, bios, unknown
	SecureBoot   string   `yaml:"secure_boot"` // yes, no, unknown
	SourceVTPM   string   `yaml:"source_vtpm"` // yes, no, unknown
	VTPMEvidence string   `yaml:"vtpm_evidence,omitempty"`
	KeyProvider  string   `yaml:"source_key_provider,omitempty"` // vSphere VM encryption (a vTPM needs it)
	Snapshots    int      `yaml:"source_snapshots,omitempty"`
	VCPUs        int      `yaml:"vcpus"`
	RAM          int      `yaml:"ram"`
	DiskGiB      int      `yaml:"disk"`
	TargetFlavor string   `yaml:"target_flavor"`
	TargetImage  string   `yaml:"target_image"`
	TargetVTPM   string   `yaml:"target_vtpm"` // "2.0 tpm-crb" or "none"
	Reasons      []string `yaml:"reasons,omitempty"`
	Flags        []string `yaml:"flags,omitempty"`
	// Checklist: what to do before cutover, check after the first boot,
	// and what the target cannot do, each line with its phase.
	Checklist []PlanCheck `yaml:"checklist,omitempty"`
	// FollowUp is work after cutover, in order, with the exact commands:
	// a Windows 11 guest on BIOS moves as BIOS, then is converted to UEFI.
	FollowUp []string `yaml:"follow_up,omitempty"`
	// BitLockerEscrow: a Windows guest whose source may have a vTPM starts
	// "unconfirmed"; the team sets "confirmed" once every recovery key is
	// escrowed (the TPM's contents and EK do not move).
	BitLockerEscrow string `yaml:"bitlocker_escrow,omitempty"`
}

// ReadPlan parses and validates a plan; errors carry the line.
func ReadPlan(r io.Reader, file string) (*Plan, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var p Plan
	if err := dec.Decode(&p); err != nil {
		if err == io.EOF {
			return nil, fmt.Errorf("%s: empty plan", file)
		}
		return nil, fmt.Errorf("%s: %v", file, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	return &p, nil
}

// Validate refuses what would make a write fail or Nova refuse a boot.
func (p *Plan) Validate() error {
	if p.Version != 1 {
		return fmt.Errorf("version %d: this vtpmctl reads plan version 1", p.Version)
	}
	seen := map[string]bool{}
	for i, img := range p.Images {
		where := fmt.Sprintf("images[%d] (%s)", i, img.Name)
		if img.Name == "" {
			return fmt.Errorf("images[%d]: name is required", i)
		}
		if seen["i:"+img.Name] {
			return fmt.Errorf("%s: named twice", where)
		}
		seen["i:"+img.Name] = true
		if err := tpmKeys(img.TPMVersion, img.TPMModel); err != nil {
			return fmt.Errorf("%s: %v", where, err)
		}
		if img.Windows && img.TPMVersion == "1.2" {
			return fmt.Errorf("%s: windows: true needs tpm_version 2.0 (Windows 11 requires it)", where)
		}
		if _, _, err := nova.PlanImageSet(img.Properties, nova.ImageRequest{TPMVersion: img.TPMVersion, TPMModel: img.TPMModel, Windows: img.Windows}); err != nil && (img.TPMVersion != "" || img.Windows) {
			return fmt.Errorf("%s: %s", where, inPlanKeys(err))
		}
		keys := make([]string, 0, len(img.Properties))
		for k := range img.Properties {
			keys = append(keys, k)
		}
		sort.Strings(keys) // the same key named on every run
		for _, k := range keys {
			if nova.IsVTPMImageKey(k) {
				return fmt.Errorf("%s: set %s with tpm_version/tpm_model, not properties", where, k)
			}
			// A plan is another team's data: it may set image properties,
			// never the image itself (visibility, owner, tags, ...).
			if why := nova.ReservedImageProperty(k); why != "" {
				return fmt.Errorf("%s: properties key %q is %s; a plan sets image properties only", where, k, why)
			}
		}
	}
	for i, f := range p.Flavors {
		where := fmt.Sprintf("flavors[%d] (%s)", i, f.Name)
		switch {
		case f.Name == "":
			return fmt.Errorf("flavors[%d]: name is required", i)
		case seen["f:"+f.Name]:
			return fmt.Errorf("%s: named twice", where)
		case f.VCPUs < 1 || f.RAM < 1 || f.Disk < 0:
			return fmt.Errorf("%s: vcpus and ram must be at least 1, disk at least 0", where)
		}
		seen["f:"+f.Name] = true
		if err := tpmKeys(f.TPMVersion, f.TPMModel); err != nil {
			return fmt.Errorf("%s: %v", where, err)
		}
		if f.TPMModel != "" && f.TPMVersion == "" {
			return fmt.Errorf("%s: tpm_model without tpm_version asks Nova for nothing", where)
		}
		if m := f.SecretSecurity; m != "" && !m.Known() {
			return fmt.Errorf("%s: secret_security %q (choose %s)", where, f.SecretSecurity, modeChoices())
		}
	}
	for i, vm := range p.VMs {
		if e := vm.BitLockerEscrow; e != "" && e != "unconfirmed" && e != "confirmed" {
			return fmt.Errorf("vms[%d] (%s): bitlocker_escrow %q (unconfirmed, or confirmed once every recovery key is escrowed)", i, vm.Name, e)
		}
	}
	return nil
}

// KeyNearMiss is a plan image's properties key that Nova ignores but
// that stands for a vTPM key (nova.NearMissKeys): plan apply would write
// it, and Nova would not read it.
type KeyNearMiss struct {
	Entry string // the plan's words for the entry: images[0] (win11)
	Image string // the entry's name
	nova.NearMiss
}

// NearMisses are the plan images' properties keys that Nova ignores but
// that stand for vTPM keys, in the plan's order. Validate refuses a vTPM
// key in properties (tpm_version and tpm_model set those); a near miss is
// a warning, as Nova would say nothing.
func (p *Plan) NearMisses() []KeyNearMiss {
	var out []KeyNearMiss
	for i, img := range p.Images {
		for _, m := range nova.NearMissesIn(img.Properties, nova.ImageKeys) {
			out = append(out, KeyNearMiss{Entry: fmt.Sprintf("images[%d] (%s)", i, img.Name), Image: img.Name, NearMiss: m})
		}
	}
	return out
}

// modeChoices are Nova's modes as a message lists them: "user, host or
// deployment".
func modeChoices() string {
	names := make([]string, len(nova.SecretModes))
	for i, m := range nova.SecretModes {
		names[i] = string(m)
	}
	last := len(names) - 1
	return strings.Join(names[:last], ", ") + " or " + names[last]
}

// tpmKeys checks an entry's tpm_version and tpm_model, named by the
// plan's own keys (nova's field names), not the CLI's flags.
func tpmKeys(version, model string) error {
	fe, ok := nova.ValidateTPM(version, model).(*nova.FieldError)
	switch {
	case !ok:
		return nil
	case len(fe.Choices) > 0:
		return fmt.Errorf("%s %q (choose %s)", fe.Field, fe.Value, strings.Join(fe.Choices, " or "))
	}
	return errors.New(inPlanKeys(fe))
}

// inPlanKeys spells an error with the plan's keys where nova names a
// field (a plan has tpm_model, not the CLI's flag).
func inPlanKeys(err error) string {
	var fe *nova.FieldError
	if errors.As(err, &fe) {
		return fe.Message(func(f nova.Field) string { return string(f) })
	}
	return err.Error()
}

// PlanCheck is one `checklist:` line of a VM and its phase (PhaseBefore,
// PhaseAfter or PhaseLimits). In the file it is either a mapping that
// says its phase, {phase: after, item: "..."}, or a plain line: plan files
// written before phases were stored have only plain lines, whose phase is
// given by the lead words import wrote (versionOnePhase). A line is written
// plain whenever it reads back with its phase, so those files, and every
// plan import writes, stay as they were.
type PlanCheck struct {
	Phase Phase  `yaml:"phase"`
	Item  string `yaml:"item"`
}

// checkPhases are the phases a `checklist:` line may have; flags and
// follow-up steps have their own keys.
var checkPhases = []Phase{PhaseBefore, PhaseAfter, PhaseLimits}

// versionOnePhase is the phase of a plain `checklist:` line, by the lead
// words plan import gave the lines of the later phases. It is read only
// here, where a line enters or leaves the file: in the program every line
// carries its Phase.
func versionOnePhase(line string) Phase {
	switch {
	case strings.HasPrefix(line, "after first boot"):
		return PhaseAfter
	case strings.HasPrefix(line, "on the target"), strings.HasPrefix(line, "snapshots and backups"):
		return PhaseLimits
	}
	return PhaseBefore
}

// UnmarshalYAML reads a plain line or a {phase, item} mapping.
func (c *PlanCheck) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.AliasNode { // *name: a line given once, used twice
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode {
		var line string
		if err := n.Decode(&line); err != nil {
			return err
		}
		*c = PlanCheck{Phase: versionOnePhase(line), Item: line}
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: a checklist line is text or {phase: PHASE, item: TEXT}", n.Line)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if seen[k.Value] {
			return fmt.Errorf("line %d: checklist line: %s given twice", k.Line, k.Value)
		}
		seen[k.Value] = true
		var dst *string
		switch k.Value {
		case "phase":
			dst = (*string)(&c.Phase)
		case "item":
			dst = &c.Item
		default:
			return fmt.Errorf("line %d: checklist line: field %s not found (phase, item)", k.Line, k.Value)
		}
		if err := v.Decode(dst); err != nil {
			return err
		}
	}
	if !slices.Contains(checkPhases, c.Phase) {
		return fmt.Errorf("line %d: checklist phase %q (choose before, after or limits)", n.Line, c.Phase)
	}
	return nil
}

// MarshalYAML writes the line plain when its lead words give its phase,
// else as a mapping that says it.
func (c PlanCheck) MarshalYAML() (any, error) {
	if versionOnePhase(c.Item) == c.Phase {
		return c.Item, nil
	}
	type explicit PlanCheck // without these methods
	return explicit(c), nil
}
