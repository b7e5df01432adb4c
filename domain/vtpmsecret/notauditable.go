package vtpmsecret

import (
	"sort"
)

// NotAuditableKind is why a project's secrets could not be listed.
type NotAuditableKind string

const (
	// TokenRefused: Keystone will not scope a token to the project (401).
	TokenRefused NotAuditableKind = "token_refused"
	// TokenFailed: getting a token for the project failed otherwise.
	TokenFailed NotAuditableKind = "token_failed"
	// ListRefused: Barbican refused to list the project's secrets (403).
	ListRefused NotAuditableKind = "list_refused"
	// ListFailed: the list failed otherwise.
	ListFailed NotAuditableKind = "list_failed"
)

// NotAuditable is why one project could not be audited. Its JSON is its
// words (String); read back from a document it keeps them as Detail,
// with no Kind.
type NotAuditable struct {
	Kind NotAuditableKind
	// Detail is the failed request on one line (TokenFailed, ListFailed).
	Detail string
}

// String words the reason: the one place it is worded.
func (n NotAuditable) String() string {
	switch n.Kind {
	case TokenRefused:
		return "Keystone will not scope a token to it (401): the caller has no role in the project"
	case TokenFailed:
		return "cannot get a token for the project: " + n.Detail
	case ListRefused:
		return "Barbican refuses to list its secrets (403): the caller needs a role there that may list secrets (admin, creator or observer under Barbican's default policy before 2026.1; reader or member from 2026.1)"
	case ListFailed:
		return "listing secrets: " + n.Detail
	}
	return n.Detail
}

// MarshalText is the reason's words: a document's not_auditable maps a
// project to them.
func (n NotAuditable) MarshalText() ([]byte, error) { return []byte(n.String()), nil }

// UnmarshalText keeps a document's words as they are.
func (n *NotAuditable) UnmarshalText(b []byte) error {
	*n = NotAuditable{Detail: string(b)}
	return nil
}

// NotAuditableLines are "project: reason", one a project, sorted: how
// every result's footer and the cleanup script list them.
func NotAuditableLines(m map[string]NotAuditable) []string {
	out := make([]string, 0, len(m))
	for p, why := range m {
		out = append(out, p+": "+why.String())
	}
	sort.Strings(out)
	return out
}

// notAuditableFooter are a table's footer lines for the projects not
// audited.
func notAuditableFooter(m map[string]NotAuditable) []string {
	lines := NotAuditableLines(m)
	for i, l := range lines {
		lines[i] = "not auditable: " + l
	}
	return lines
}
