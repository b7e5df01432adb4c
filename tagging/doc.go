// Package tagging is the service behind `image set|unset`: find the
// images, plan Nova's properties on them (nova.PlanImages), advise on
// flavor conflicts, write only what differs, and count the bootable
// volumes created from a changed image that keep its old properties
// (Cinder copied them; Nova reads that copy for a server booted from the
// volume).
package tagging
