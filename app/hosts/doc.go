// Package hosts is the use case behind `hosts audit`: it settles the
// Nova release, lists the fleet (every hypervisor with the TPM traits
// Placement holds for it) and every project's servers once, and hands
// them to domain/fleet's pure audit. The drain view is that audit's
// answer for one host (fleet.Result.Drain).
package hosts
