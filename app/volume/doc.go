// Package volume holds the services behind `volume show|list|set|unset`.
// Show and List read boot volumes and say what Nova makes of a server
// booted from each (no write). Tag finds the bootable volumes, plans
// Nova's properties on their image metadata (Plan: the image commands'
// profile and refusals), advises on flavor conflicts (Conflicts) and
// writes only what differs.
package volume
