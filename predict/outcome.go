package predict

import (
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/output"
)

// Schemas of the show and list commands' documents.
const (
	ImageShowSchema  = "vtpmctl.image-show/1"
	VolumeShowSchema = "vtpmctl.volume-show/1"
	FlavorShowSchema = "vtpmctl.flavor-show/1"
	ImageListSchema  = "vtpmctl.image-list/1"
	VolumeListSchema = "vtpmctl.volume-list/1"
	FlavorListSchema = "vtpmctl.flavor-list/1"
	ModePlanSchema   = "vtpmctl.secrets-mode-plan/1"
)

// Outcome is what Nova gives a server, as values: a vTPM of a version and
// model, none, or Nova's refusal. A table shows it as one cell (String).
type Outcome struct {
	Enabled bool   `json:"enabled"`
	Version string `json:"version,omitempty"`
	Model   string `json:"model,omitempty"`
	Refused string `json:"refused,omitempty"` // Nova's message
}

func outcomeOf(d nova.Decision) Outcome {
	switch {
	case d.Error != nil:
		return Outcome{Refused: d.Error.Message}
	case d.VTPM:
		return Outcome{Enabled: true, Version: d.Version, Model: d.Model}
	}
	return Outcome{}
}

// String is the cell: "none", "VERSION MODEL", or "refused: " and Nova's
// message.
func (o Outcome) String() string {
	switch {
	case o.Refused != "":
		return "refused: " + o.Refused
	case o.Enabled:
		return o.Version + " " + o.Model
	}
	return "none"
}

// schemaField heads a show command's Record: its document's schema.
func schemaField(s string) output.Field { return output.Field{Name: output.SchemaField, Value: s} }
