// Package glance talks to the image API (Glance v2) for vtpmctl: image
// lookups by name or ID, property lists and JSON-patch writes. One small
// function per request, in gophercloud's style; the rules are package
// nova's.
package glance
