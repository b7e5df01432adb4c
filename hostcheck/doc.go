// Package hostcheck answers, for one compute host, whether a vTPM guest
// will boot there, keep its TPM state across stop/start, and whether the
// scheduler is told the truth about it — and merges many hosts' answers.
package hostcheck
