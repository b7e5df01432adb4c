// Package placement holds the Placement API calls vtpmctl makes, one
// small function per request in gophercloud's style, each setting the
// microversion it needs. Placement holds the traits Nova reports for each
// compute node's resource provider, which the scheduler matches against a
// vTPM guest's required traits.
package placement
