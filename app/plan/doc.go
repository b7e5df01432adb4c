// Package plan holds the migration's use cases: Import (the inventory
// read from files or vCenters, the release and the flavor catalogue
// settled, then the plan written by domain/migration), Apply (the
// cloud's images, flavors and boot volumes converged to a plan) and
// VerifyCutover (the cloud's servers checked against the plan's
// promises). Typed requests and results; no flag names.
package plan
