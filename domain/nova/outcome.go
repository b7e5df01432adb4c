package nova

// Outcome is what Nova gives a server, as values: a vTPM of a version and
// model, none, or Nova's refusal. The show and list documents carry it
// (image, volume and flavor alike); a table shows it as one cell (String).
type Outcome struct {
	Enabled bool   `json:"enabled"`
	Version string `json:"version,omitempty"`
	Model   string `json:"model,omitempty"`
	Refused string `json:"refused,omitempty"` // Nova's message
}

// OutcomeOf is d as an Outcome.
func OutcomeOf(d Decision) Outcome {
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
