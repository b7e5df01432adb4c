// Package image holds the services behind `image show|list|set|unset`.
// Show and List read images and say what Nova makes of them (no write).
// Tag finds the images, plans Nova's properties on them
// (nova.PlanImages), advises on flavor conflicts, writes only what
// differs, and counts the bootable volumes created from each image that
// keep its old properties (Cinder copied them; Nova reads that copy for a
// server booted from the volume).
package image
