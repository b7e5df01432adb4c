package check

import (
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/output"
)

// Schema names the JSON of `check`.
const Schema = "vtpmctl.check/1"

// Report is `check`'s document: Nova's decision as values (a
// boolean vTPM, bare versions with where each came from, the release as
// its parts). Its text formats keep the friendly words (TextRecord).
type Report struct {
	Schema      string            `json:"schema"`
	NovaRelease *nova.ReleaseInfo `json:"nova_release"`
	// ReleaseNote says how the release was settled ("" offline or pinned).
	ReleaseNote string `json:"nova_release_note"`
	Result      string `json:"result"` // accepted, refused
	VTPM        bool   `json:"vtpm"`
	Version     string `json:"version"`
	// The *Source fields say where a value came from: flavor, image or
	// default ("" when there is no value).
	VersionSource        string            `json:"version_source"`
	Model                string            `json:"model"`
	ModelSource          string            `json:"model_source"`
	SecretSecurity       nova.SecretMode   `json:"secret_security"`
	SecretSecuritySource string            `json:"secret_security_source"`
	RequiredTraits       []string          `json:"required_traits"`
	UnsupportedOps       []string          `json:"unsupported_operations"`
	OperationMessages    map[string]string `json:"operation_messages"` // Nova's refusal per operation
	Error                string            `json:"error"`
	ErrorKind            string            `json:"error_kind"`
	ErrorWhen            string            `json:"error_when"`
	Notes                []string          `json:"notes"`
	// NearMisses are the keys Nova ignored that stand for vTPM keys, and
	// what ignoring each did (no vTPM, the default model or mode).
	NearMisses []nova.NearMiss `json:"near_misses"`
}

// NewReport is d as check's document; note is how its release was
// settled, misses the keys Nova ignored (Result.NearMisses).
func NewReport(d nova.Decision, note string, misses []nova.NearMiss) Report {
	r := Report{Schema: Schema, NovaRelease: d.Release.Info(), ReleaseNote: note, Result: "accepted", VTPM: d.VTPM,
		Version: d.Version, VersionSource: d.VersionFrom, Model: d.Model, ModelSource: d.ModelFrom,
		SecretSecurity: d.SecretSecurity, SecretSecuritySource: d.SecretSecurityFrom, RequiredTraits: d.RequiredTraits,
		UnsupportedOps: []string{}, OperationMessages: map[string]string{}, Notes: d.Notes}
	if r.RequiredTraits == nil {
		r.RequiredTraits = []string{}
	}
	if r.Notes == nil {
		r.Notes = []string{}
	}
	r.NearMisses = append([]nova.NearMiss{}, misses...)
	if d.Error != nil || d.VTPM { // without a vTPM nothing is refused
		for _, op := range d.Unsupported {
			r.UnsupportedOps = append(r.UnsupportedOps, op.Name)
			r.OperationMessages[op.Name] = op.Message
		}
	}
	if d.Error != nil {
		r.Result, r.Error, r.ErrorKind, r.ErrorWhen = "refused", d.Error.Message, string(d.Error.Kind), d.Error.Stage.Describe()
	}
	return r
}

// Record is the document, field for field (a test keeps it the JSON).
func (r Report) Record() output.Record {
	return output.Record{
		{Name: output.SchemaField, Value: r.Schema},
		{Name: "nova_release", Value: r.NovaRelease},
		{Name: "nova_release_note", Value: r.ReleaseNote},
		{Name: "result", Value: r.Result},
		{Name: "vtpm", Value: r.VTPM},
		{Name: "version", Value: r.Version},
		{Name: "version_source", Value: r.VersionSource},
		{Name: "model", Value: r.Model},
		{Name: "model_source", Value: r.ModelSource},
		{Name: "secret_security", Value: r.SecretSecurity},
		{Name: "secret_security_source", Value: r.SecretSecuritySource},
		{Name: "required_traits", Value: r.RequiredTraits},
		{Name: "unsupported_operations", Value: r.UnsupportedOps},
		{Name: "operation_messages", Value: r.OperationMessages},
		{Name: "error", Value: r.Error},
		{Name: "error_kind", Value: r.ErrorKind},
		{Name: "error_when", Value: r.ErrorWhen},
		{Name: "notes", Value: r.Notes},
		{Name: "near_misses", Value: r.NearMisses},
	}
}

// TextRecord is what table, value and csv show: "yes" or "no", and each
// value beside where it came from (version, version_source), as the
// document has them. The release is words in a table ("Zed (nova 26)")
// and raw in value and csv (zed, 2024.2: what --nova-release takes, for
// $(…); nova.ReleaseInfo's ScriptText).
func (r Report) TextRecord() output.Record {
	yesNo := map[bool]string{true: "yes", false: "no"}
	return output.Record{
		{Name: "nova_release", Value: r.NovaRelease},
		{Name: "nova_release_note", Value: r.ReleaseNote},
		{Name: "result", Value: r.Result},
		{Name: "vtpm", Value: yesNo[r.VTPM]},
		{Name: "version", Value: r.Version},
		{Name: "version_source", Value: r.VersionSource},
		{Name: "model", Value: r.Model},
		{Name: "model_source", Value: r.ModelSource},
		{Name: "secret_security", Value: string(r.SecretSecurity)},
		{Name: "secret_security_source", Value: r.SecretSecuritySource},
		{Name: "required_traits", Value: r.RequiredTraits},
		{Name: "unsupported_operations", Value: r.UnsupportedOps},
		{Name: "operation_messages", Value: r.OperationMessages},
		{Name: "error", Value: r.Error},
		{Name: "error_kind", Value: r.ErrorKind},
		{Name: "error_when", Value: r.ErrorWhen},
		{Name: "notes", Value: r.Notes},
	}
}
