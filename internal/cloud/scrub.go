package cloud

import "github.com/vtpmctl/vtpmctl/internal/redact"

// Credentials must not reach a terminal even when a server echoes them in
// an error body, or the user put them in auth_url: Connect registers what
// it authenticates with, the transport chain every token it sends or is
// issued (policyTransport), and every error line, debug line and result
// is scrubbed. The registry is internal/redact's, so output can use it
// without importing the cloud.

// RegisterSecret adds a value that Scrub removes wherever it appears.
// Values shorter than 4 characters are not registered: they would blank
// out ordinary words.
func RegisterSecret(v string) { redact.Register(v) }

// Scrub removes registered credentials and URL user-info from s.
func Scrub(s string) string { return redact.Scrub(s) }
