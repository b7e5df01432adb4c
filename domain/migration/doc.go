// Package plans turns a vSphere inventory (RVTools vInfo CSV, govc JSON)
// into a vTPM-aware migration plan for OpenStack, converges the cloud's
// images and flavors to it, and writes the cutover checklist.
package plans
