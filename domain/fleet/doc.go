// Package fleet holds the pure rules of the fleet audit and the upgrade
// check: AuditHosts (each host's Placement traits against its release's
// required traits and, where given, its `host check` report, matched by
// matchReports), UpgradeImpact and UpgradeStart (the one answer to where
// an upgrade starts), DecideDrain (how each vTPM guest leaves its host:
// live-migrate, cold-migrate or stays, with the reason), the known bugs
// across an upgrade, and their results, views, metrics and JUnit.
//
// It reads nothing: app/hosts and app/upgrade list the hosts (Cloud) and
// hand them in. It reads hostcheck's reports; hostcheck never imports it.
package fleet
