// Package report gathers the report's results from a cloud (Build): the
// fleet audit, the secrets audit and the upgrade check on one session,
// with one release detection and one server list. domain/report renders
// them.
package report
