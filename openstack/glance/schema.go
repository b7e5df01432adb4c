package glance

import "strings"

// pointerSegment escapes a property key as one JSON-pointer segment
// (RFC 6901: "~" is "~0", "/" is "~1"), so "a/b" stays one key and never
// becomes a path into the image ("tags/-").
func pointerSegment(key string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
}
