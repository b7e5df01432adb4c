// Package barbican audits the Barbican secret behind every vTPM guest:
// it exists, exactly once, in the right project, owned by the right
// principal who is still valid, not expiring, not private to its owner —
// and finds the secrets whose guest is gone. It never reads a payload.
package barbican
