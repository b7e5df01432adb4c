// Package migration is the vTPM-aware migration's model, pure: the
// vSphere inventory as its files describe it (RVTools vInfo CSV, govc
// JSON), the plan made from it (the rules, each stated as a reason; the
// flavor mapping), the plan file, the cutover checklist, and the rules
// that verify a cutover from what the cloud showed. It reads no cloud:
// app/plan gathers, vsphere reads a vCenter.
package migration
