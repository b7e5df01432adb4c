// Package vsphere reads a vCenter's VMs (govmomi: one container view,
// one property-collector pass) into the migration's inventory
// (migration.SourceVM): the vCenter is the source of truth a plan import
// can read instead of exported files.
package vsphere
