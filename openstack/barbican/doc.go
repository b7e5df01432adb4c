// Package barbican is the Key Manager API (Barbican) as vtpmctl calls it:
// its microversion, the vTPM secrets' list pages, a secret's ACL, and
// the consumer writes — one small function per request, each asking for
// the microversion it needs. What the answers mean is domain/vtpmsecret's.
package barbican
