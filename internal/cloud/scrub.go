package cloud

import "github.com/vtpmctl/vtpmctl/internal/redact"

// Credentials must not reach a terminal even when a server echoes them in
// an error body, or the user put them in auth_url: Connect registers what
// it authenticates with, the transport chain every token it sends or is
// issued (policyTransport), and every error line, debug line and result
// is scrubbed. The registry is internal/redact's, so output can use it
// without importing the cloud.

// RegisterSecret adds a token (random, issued by a server) that Scrub
// removes wherever it appears. Values shorter than 4 characters are not
// registered: they would blank out ordinary words.
func RegisterSecret(v string) { redact.Register(v) }

// RegisterPassword adds a value a person chose (a password, a passcode):
// it may be any word ("secret", "false"), so it is removed only where a
// credential can stand, never from the middle of a key or a name
// (redact.RegisterPassword).
func RegisterPassword(v string) { redact.RegisterPassword(v) }

// Scrub removes registered credentials and URL user-info from error text.
func Scrub(s string) string { return redact.Scrub(s) }
