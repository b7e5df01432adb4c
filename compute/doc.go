// Package compute talks to Nova's compute API for vtpmctl: flavors and
// their extra specs, the servers that are vTPM guests, and the version
// document that tells the release. One small function per request, in
// gophercloud's style; the rules they apply are package nova's.
package compute

// WriteMicroversion makes Nova validate extra specs itself (2.86), a
// second line of defence behind nova's own validation.
const WriteMicroversion = "2.86"

// FlavorMicroversion embeds extra_specs in flavor responses (2.61), so a
// flavor list needs no per-flavor extra-spec GET.
const FlavorMicroversion = "2.61"
