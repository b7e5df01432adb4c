package nova

import (
	"fmt"
	"strings"
)

// A Release is a JSON/YAML string ("2024.2"), so every result and file
// reads and writes it the same way (the CLI's flags parse it with
// ParseRelease too).

// MarshalText writes the name users type; unknown is empty.
func (r Release) MarshalText() ([]byte, error) {
	if r == ReleaseUnknown {
		return []byte{}, nil
	}
	return []byte(r.String()), nil
}

// UnmarshalText reads any spelling ParseRelease accepts; empty is unknown.
func (r *Release) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*r = ReleaseUnknown
		return nil
	}
	v, err := ParseRelease(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// ReleaseEvidence is what can tell the release, strongest first: the
// user's flag, the nova package installed on the host, the cloud's compute
// API maximum microversion.
type ReleaseEvidence struct {
	Flag Release
	// Field is the request field Flag fills (FieldRelease unless set):
	// errors and hints name it, and each caller spells it its own way.
	Field     Field
	Installed Release
	Cloud     *Detection
}

// ResolvedRelease is the release to apply, the releases the evidence
// leaves open, and how it was settled.
type ResolvedRelease struct {
	Release    Release
	Candidates []Release     // oldest first; one when settled
	given      bool          // Release is the caller's field, not evidence
	cloudMax   *Microversion // the cloud's compute API maximum, when asked too
	installed  bool          // Release is the installed nova package's
	det        *Detection
	field      Field // the caller's field that settles the release
}

// ReleaseUnknownError: nothing told the release. Field is the caller's
// field that would (each command spells its own).
type ReleaseUnknownError struct{ Field Field }

// Message spells the error with name(field), as FieldError.Message does.
func (e *ReleaseUnknownError) Message(name func(Field) string) string {
	return fmt.Sprintf("the Nova release is unknown: pass %s (e.g. zed, 2024.2)", name(e.Field))
}

func (e *ReleaseUnknownError) Error() string { return e.Message(fieldItself) }

// fieldItself names a field as itself (callers with flags use Message).
func fieldItself(f Field) string { return string(f) }

// ResolveRelease settles the release from the evidence. With nothing to
// go on it is an error naming the flag.
func ResolveRelease(ev ReleaseEvidence) (ResolvedRelease, error) {
	field := ev.Field
	if field == "" {
		field = FieldRelease
	}
	switch {
	case ev.Flag != ReleaseUnknown:
		r := ResolvedRelease{Release: ev.Flag, Candidates: []Release{ev.Flag}, given: true, field: field}
		if ev.Cloud != nil {
			max := ev.Cloud.MaxMicroversion
			r.cloudMax = &max
		}
		return r, nil
	case ev.Installed != ReleaseUnknown:
		return ResolvedRelease{Release: ev.Installed, Candidates: []Release{ev.Installed}, installed: true, field: field}, nil
	case ev.Cloud != nil && len(ev.Cloud.Candidates) > 0:
		return ResolvedRelease{Release: ev.Cloud.Newest(), Candidates: ev.Cloud.Candidates, det: ev.Cloud, field: field}, nil
	}
	return ResolvedRelease{}, &ReleaseUnknownError{Field: field}
}

// UpgradeFrom is the release an upgrade to `to` starts from, and whether
// `to` is an upgrade at all: the resolved release, or `to` itself when it
// is one of the releases the evidence leaves open (the cloud may well run
// it already). Every command that checks an upgrade asks this.
func (r ResolvedRelease) UpgradeFrom(to Release) (from Release, ok bool) {
	from = r.Release
	for _, c := range r.Candidates {
		if c == to && to < from {
			from = to
		}
	}
	return from, to >= from
}

// Label names the release the way a report should: "2025.1 or 2025.2"
// while the evidence leaves both open, else the one release.
func (r ResolvedRelease) Label() string { return Label(r.Release, r.Candidates) }

// Label is ResolvedRelease.Label for a result read back from JSON.
func Label(rel Release, candidates []Release) string {
	if len(candidates) < 2 {
		return rel.String()
	}
	names := make([]string, len(candidates))
	for i, c := range candidates {
		names[i] = c.String()
	}
	return strings.Join(names, " or ")
}

// Ambiguous says whether the evidence left several releases open.
func (r ResolvedRelease) Ambiguous() bool { return len(r.Candidates) > 1 }

// ReleaseContext is how every audit's JSON states the release whose rules
// it applied, and the releases the cloud's evidence left open (2.100:
// 2025.1 or 2025.2) when there are several.
type ReleaseContext struct {
	Release    Release   `json:"nova_release"`
	Candidates []Release `json:"nova_release_candidates,omitempty"`
}

// Context is the resolution as a result carries it.
func (r ResolvedRelease) Context() ReleaseContext {
	c := ReleaseContext{Release: r.Release}
	if r.Ambiguous() {
		c.Candidates = r.Candidates
	}
	return c
}

// Note says how the release was settled. differ answers whether two
// candidates give different answers to the caller's question (nil: the
// vTPM rules at all, RulesDiffer).
func (r ResolvedRelease) Note(differ func(a, b Release) bool) string {
	return r.NoteIn(differ, fieldItself)
}

// NoteIn is Note with the caller's field spelled name(field): a command
// says its flag.
func (r ResolvedRelease) NoteIn(differ func(a, b Release) bool, name func(Field) string) string {
	switch {
	case r.given && r.cloudMax != nil:
		return fmt.Sprintf("given by %s; the cloud's compute API maximum is %s", r.name(name), *r.cloudMax)
	case r.given:
		return "given by " + r.name(name)
	case r.installed:
		return "the installed nova package"
	case r.det == nil:
		return ""
	}
	d := r.det
	names := make([]string, len(d.Candidates))
	for k, c := range d.Candidates {
		names[k] = c.Long()
	}
	switch {
	case d.PreRelease:
		return fmt.Sprintf("compute API maximum %s matches no release; treated as a development build of %s", d.MaxMicroversion, r.Release.Long())
	case !d.Ambiguous():
		return fmt.Sprintf("detected from the compute API maximum microversion %s", d.MaxMicroversion)
	case !r.differ(differ):
		return fmt.Sprintf("compute API maximum %s is shared by %s; their vTPM rules give the same answer here", d.MaxMicroversion, strings.Join(names, " and "))
	}
	return fmt.Sprintf("compute API maximum %s is shared by %s, whose vTPM rules differ for this request; assuming %s — pass %s to settle", d.MaxMicroversion, strings.Join(names, " and "), r.Release, r.name(name))
}

// Warning is the line every command prints when the open candidates
// really answer the question differently; "" otherwise.
func (r ResolvedRelease) Warning(differ func(a, b Release) bool) string {
	if !r.Ambiguous() || !r.differ(differ) {
		return ""
	}
	return r.Note(differ)
}

// WarningIn is Warning with the caller's field spelled name(field).
func (r ResolvedRelease) WarningIn(differ func(a, b Release) bool, name func(Field) string) string {
	if !r.Ambiguous() || !r.differ(differ) {
		return ""
	}
	return r.NoteIn(differ, name)
}

// name spells the field that settles the release: the caller's, or
// FieldRelease for a result built without ResolveRelease.
func (r ResolvedRelease) name(name func(Field) string) string {
	if r.field == "" {
		return name(FieldRelease)
	}
	return name(r.field)
}

func (r ResolvedRelease) differ(differ func(a, b Release) bool) bool {
	if differ == nil {
		differ = RulesDiffer
	}
	for _, c := range r.Candidates[1:] {
		if differ(r.Candidates[0], c) {
			return true
		}
	}
	return false
}

// RulesDiffer says whether two releases' vTPM rules differ anywhere:
// the generic question for commands that apply many rules.
func RulesDiffer(a, b Release) bool {
	return a.SupportsVTPM() != b.SupportsVTPM() || a.HasSecretSecurity() != b.HasSecretSecurity() ||
		a.RequiresModelTrait() != b.RequiresModelTrait() || a.HostModeLiveMigration() != b.HostModeLiveMigration()
}
