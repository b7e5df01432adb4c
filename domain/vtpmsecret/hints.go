package vtpmsecret

import "fmt"

// worded is a text with a place for the caller's name of a hint: plain
// without a name; with one, before + format (its %s the name) + after.
// The sentence is the audit's, the name the caller's (a flag, a key).
type worded struct {
	plain, before, format, after string
	// remedy: the text is the finding's Remedy, not its Message.
	remedy bool
}

// appended is text, or text followed by format with the name.
func appended(text, format string) *worded {
	return &worded{plain: text, before: text, format: format}
}

func (w *worded) with(name string) string {
	if name == "" {
		return w.plain
	}
	return w.before + fmt.Sprintf(w.format, name) + w.after
}

// nameFindings words one guest's hints with the caller's names.
func nameFindings(g *GuestResult, name func(Hint) string) {
	for j := range g.Findings {
		f := &g.Findings[j]
		if f.hinted == nil {
			continue
		}
		if f.hinted.remedy {
			f.Remedy = f.hinted.with(name(f.Hint))
		} else {
			f.Message = f.hinted.with(name(f.Hint))
		}
	}
}

// Name words the hints of r with the caller's names for them: name
// returns the caller's spelling of a hint (its flag), "" for a hint it
// has no name for, whose texts then stay as they read. The audit's
// texts name nothing until then; calling Name again rewords them.
func (r *Result) Name(name func(Hint) string) {
	for i := range r.Guests {
		nameFindings(&r.Guests[i], name)
	}
	r.names = name // a streamed result's guests, as they are walked
	if su := r.ServiceUser; su != nil && su.hinted != nil {
		su.Evidence = su.hinted.with(name(HintServiceUser))
	}
	r.cleanupPlan = name(HintCleanupPlan)
}
