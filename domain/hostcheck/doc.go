// Package hostcheck answers, for one compute host, whether a vTPM guest
// will boot there, keep its TPM state across stop/start, and whether the
// scheduler is told the truth about it.
//
// Run is two steps: gather (facts_gather.go) reads every fact once — the
// config files below the roots, libvirt's answers, the installed Nova
// code, the firmware — into Facts, and derive computes the values several
// checks share; then each check (the list in run.go) is a pure function
// of the Facts, so their order is only the report's. A new check is a
// func(*Facts) []Check in checks_*.go, added to that list, tested on a
// Facts literal (facts_test.go); a new fact is read in gather.
package hostcheck
