// Package compute talks to Nova's compute API for vtpmctl: flavors and
// their extra specs, the servers that are vTPM guests, and the version
// document that tells the release. One small function per request, in
// gophercloud's style; the rules they apply are package nova's.
package compute

import "github.com/gophercloud/gophercloud/v2"

// WriteMicroversion makes Nova validate extra specs itself (2.86), a
// second line of defence behind nova's own validation.
const WriteMicroversion = "2.86"

// FlavorMicroversion embeds extra_specs in flavor responses (2.61), so a
// flavor list needs no per-flavor extra-spec GET.
const FlavorMicroversion = "2.61"

// atMicroversion is a copy of c that speaks microversion mv: the caller's
// client is shared and must not change under another request.
func atMicroversion(c *gophercloud.ServiceClient, mv string) *gophercloud.ServiceClient {
	cc := *c
	cc.Microversion = mv
	return &cc
}
