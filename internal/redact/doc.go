// Package redact is the one registry of credentials the process holds
// (passwords, every token it was ever issued) and the one scrubber every
// error line, debug line and rendered result passes through: a server may
// echo a token in an error body, and that text is copied into results.
// Tokens are removed wherever they appear; a password, which may be any
// word, only where a credential can stand (RegisterPassword).
package redact
