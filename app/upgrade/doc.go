// Package upgrade is the use case behind `upgrade check`: it settles the
// release the cloud runs, refuses a target older than it before anything
// is listed (fleet.UpgradeStart), lists the fleet and the guests once
// (app/hosts.ReadCloud), and hands them to domain/fleet's pure
// UpgradeImpact.
package upgrade
