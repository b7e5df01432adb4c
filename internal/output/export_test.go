package output

import "reflect"

// WriteJSON and Streams let the external tests (which import the result
// packages, themselves importers of output) reach the streamer.
var (
	WriteJSON      = writeJSON
	WriteYAML      = writeTypedYAML
	WriteYAMLWhole = writeTypedYAMLWhole
)

// Streams: v's type is written a field at a time, not by MarshalIndent whole.
func Streams(v any) bool {
	_, ok := structFields(reflect.TypeOf(v))
	return ok && !custom(reflect.TypeOf(v))
}
