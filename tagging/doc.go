// Package tagging holds the services behind `image set|unset` and
// `volume set|unset`: find the objects, plan Nova's properties on them
// (nova.PlanImages, PlanVolumes), advise on flavor conflicts, write only
// what differs, and, for an image, count the bootable volumes created
// from it that keep its old properties (Cinder copied them; Nova reads
// that copy for a server booted from the volume).
package tagging
