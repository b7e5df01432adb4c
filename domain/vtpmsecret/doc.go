// Package vtpmsecret holds the rules of the Barbican secret behind every
// vTPM guest: it exists, exactly once, in the right project, owned by the
// right principal who is still valid, not expiring, not private to its
// owner — and which secrets are orphans. It is pure: every API answer
// comes in as Facts (app/secrets gathers them), and it names no flag (a
// caller words the Hints with its own). It never sees a payload.
package vtpmsecret
