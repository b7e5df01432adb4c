package nova

import "fmt"

// Stage says when a user meets a refusal. It matters for UX: an API 400
// stops the request; a scheduling error is a 202 followed by a server in
// ERROR with a fault.
type Stage string

const (
	// StageFlavorUpdate: POST/PUT os-extra_specs at microversion >= 2.86.
	StageFlavorUpdate Stage = "flavor-update"
	// StageServerCreate: POST /servers answers HTTP 400.
	StageServerCreate Stage = "server-create"
	// StageScheduling: POST /servers answers 202, the server goes to ERROR
	// (conductor buries it in cell0 with the exception as fault).
	StageScheduling Stage = "scheduling"
	// StageBuild: scheduled, then nova-compute fails the build on every
	// host it is retried on; the conductor gives up with MaxRetriesExceeded.
	StageBuild Stage = "build"
)

// Describe says in words what the user sees at this stage.
func (s Stage) Describe() string {
	switch s {
	case StageFlavorUpdate:
		return "HTTP 400 when the extra spec is set (microversion >= 2.86)"
	case StageServerCreate:
		return "HTTP 400 at server create"
	case StageScheduling:
		return "server create returns 202, then the server goes to ERROR with this fault"
	case StageBuild:
		return "server create returns 202, nova-compute fails the build on each host tried, then the server goes to ERROR with this fault"
	}
	return string(s)
}

// ErrorKind names a refusal. Each maps to one Nova exception.
type ErrorKind string

const (
	KindFlavorImageConflict  ErrorKind = "FlavorImageConflict"
	KindInvalidVersion       ErrorKind = "InvalidTPMVersion"
	KindInvalidModel         ErrorKind = "InvalidTPMModel"
	KindCRBNeedsTPM2         ErrorKind = "CRBRequiresTPM2"
	KindInvalidImageMetadata ErrorKind = "InvalidImageMetadata"
	KindInvalidExtraSpec     ErrorKind = "InvalidExtraSpec"
	KindUnknownExtraSpec     ErrorKind = "UnknownExtraSpec"
	KindUnsupportedSecretSec ErrorKind = "UnsupportedSecretSecurity"
	KindSecretCreateRefused  ErrorKind = "SecretCreateRefused"
)

// Exception is Nova's exception class, as its logs and a server's fault
// name it. A caller that treats one refusal apart compares these, never
// Nova's message.
type Exception string

const (
	ExceptionFlavorImageConflict Exception = "FlavorImageConflict"
	// ExceptionNotImplementedError: the flavor/volume conflict Nova
	// cannot word (DecideVolume); its Decision's last note says what Nova
	// means.
	ExceptionNotImplementedError Exception = "NotImplementedError"
	ExceptionVolumeNotBootable   Exception = "InvalidBDMVolumeNotBootable"
	ExceptionNoValidHost         Exception = "NoValidHost"
	ExceptionValidationError     Exception = "ValidationError"
	ExceptionInvalidRequest      Exception = "InvalidRequest"
	ExceptionInvalid             Exception = "Invalid"
	ExceptionMaxRetriesExceeded  Exception = "MaxRetriesExceeded"
)

// Refusal is a refusal exactly as Nova words it.
type Refusal struct {
	Kind ErrorKind `json:"kind"`
	// Exception is Nova's exception class, for readers of nova logs.
	Exception Exception `json:"exception"`
	// Message is Nova's text, character for character.
	Message    string `json:"message"`
	Stage      Stage  `json:"stage"`
	HTTPStatus int    `json:"http_status"`
}

func (e *Refusal) Error() string { return e.Message }

func conflictError(key, flavorName, flavorVal, imageName, imageVal string) *Refusal {
	return &Refusal{
		Kind:      KindFlavorImageConflict,
		Exception: ExceptionFlavorImageConflict,
		Message: fmt.Sprintf("Flavor %s has hw:%s extra spec explicitly set to %s, "+
			"conflicting with image %s which has hw_%s explicitly set to %s.",
			flavorName, key, flavorVal, imageName, key, imageVal),
		Stage:      StageScheduling,
		HTTPStatus: 400,
	}
}

// pyRepr renders a string as Python's %r does for the values Nova prints:
// single quotes unless the value holds a single quote and no double quote.
func pyRepr(s string) string {
	q := byte('\'')
	if containsByte(s, '\'') && !containsByte(s, '"') {
		q = '"'
	}
	out := []byte{q}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == q || c == '\\':
			out = append(out, '\\', c)
		case c == '\n':
			out = append(out, '\\', 'n')
		case c == '\r':
			out = append(out, '\\', 'r')
		case c == '\t':
			out = append(out, '\\', 't')
		case c < 0x20 || c == 0x7f:
			out = append(out, []byte(fmt.Sprintf("\\x%02x", c))...)
		default:
			out = append(out, c)
		}
	}
	return string(append(out, q))
}

func containsByte(s string, b byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return true
		}
	}
	return false
}
