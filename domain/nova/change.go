package nova

import "sort"

// Action is what a write does to one key.
type Action string

const (
	Added     Action = "added"
	Replaced  Action = "replaced"
	Removed   Action = "removed"
	Unchanged Action = "unchanged"
)

// Change is one key of one object, before and after.
type Change struct {
	Object string `json:"object"` // name (or ID when nameless)
	ID     string `json:"id"`
	Key    string `json:"key"`
	Old    string `json:"old"`
	New    string `json:"new"`
	Action Action `json:"action"`
}

// Diff computes, key by key, what turns current into current+set-unset.
// Unchanged keys are reported too, so a second identical run shows that
// nothing was (or needed to be) written.
func Diff(object, id string, current, set map[string]string, unset []string) []Change {
	var out []Change
	for k, v := range set {
		old, had := current[k]
		switch {
		case !had:
			out = append(out, Change{object, id, k, "", v, Added})
		case old != v:
			out = append(out, Change{object, id, k, old, v, Replaced})
		default:
			out = append(out, Change{object, id, k, old, v, Unchanged})
		}
	}
	for _, k := range unset {
		if _, also := set[k]; also {
			continue
		}
		if old, had := current[k]; had {
			out = append(out, Change{object, id, k, old, "", Removed})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// Writes keeps only the changes that need a request.
func Writes(cs []Change) []Change {
	var out []Change
	for _, c := range cs {
		if c.Action != Unchanged {
			out = append(out, c)
		}
	}
	return out
}

// Apply returns current with the changes applied: the state after the write.
func Apply(current map[string]string, cs []Change) map[string]string {
	out := make(map[string]string, len(current)+len(cs))
	for k, v := range current {
		out[k] = v
	}
	for _, c := range cs {
		if c.Action == Removed {
			delete(out, c.Key)
		} else {
			out[c.Key] = c.New
		}
	}
	return out
}
