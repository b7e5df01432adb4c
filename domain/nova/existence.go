package nova

// Existence is Nova's word on whether a server exists, asked by its UUID.
type Existence string

const (
	// ServerGone: an admin's GET /servers/{uuid} answered 404 while every
	// cell was up: Nova has no such instance (deleted, or never created).
	// The one answer a secret may be deleted on.
	ServerGone Existence = "gone"
	// ServerExists: Nova answered with the server (a partial record of a
	// down cell's server counts: it exists).
	ServerExists Existence = "exists"
	// ServerUndetermined: Nova was not asked, or its answer proves
	// nothing (not admin, a cell down, a failed request).
	ServerUndetermined Existence = "undetermined"
)

// ExistenceProof is what Nova said of one server UUID, and why.
type ExistenceProof struct {
	State Existence `json:"state"`
	// Status is the server's status when it exists (UNKNOWN: a partial
	// record from a down cell).
	Status string `json:"status,omitempty"`
	// ProjectID is the server's project when it exists.
	ProjectID string `json:"project_id,omitempty"`
	// Region is the other region whose Nova has it, when several regions'
	// Novas were asked (a key manager they share); "" the session's own.
	Region string `json:"region,omitempty"`
	// Reason says how it was decided, or why it could not be.
	Reason string `json:"reason"`
}
