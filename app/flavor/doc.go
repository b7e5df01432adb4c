// Package flavor holds the services behind `flavor show|list|set|unset|
// create`. Show and List read flavors (Show also says what Nova gives a
// server of the flavor with an image without hw_tpm_*; no write). Tag
// settles the release, validates, plans, advises on image conflicts,
// writes what differs and counts the servers using each changed flavor;
// Create makes a vTPM flavor with the same checks, all or nothing.
package flavor
