// Package secrets holds the use cases of the vTPM guests' Barbican
// secrets: the audit (AuditSecrets gathers every project's secrets, ACLs,
// owners and roles, then domain/vtpmsecret decides), the settling of
// undetermined orphans and the cleanup plan (Nova asked by UUID), and
// the protect and unprotect writes. Requests and results are typed and
// name no flag; progress goes to the caller's Progress func.
package secrets
