package output

import (
	"bytes"
	"testing"
)

// shown is a show command's typed result: its JSON fields differ from
// its Record's, so a Write that encoded the struct would show.
type shown struct {
	Name  string `json:"display_name"`
	Specs map[string]string
}

func (s shown) Record() Record {
	return Record{{Name: "name", Value: s.Name}, {Name: "vtpm", Value: "yes"}, {Name: "specs", Value: s.Specs}}
}

// TestWriteRecorder: a Recorder is written as its Record, byte for byte,
// in every format and with -c.
func TestWriteRecorder(t *testing.T) {
	v := shown{Name: "w1", Specs: map[string]string{"hw:tpm_version": "2.0"}}
	for _, o := range []Options{
		{Format: "table"}, {Format: "json"}, {Format: "yaml"}, {Format: "value"}, {Format: "csv"},
		{Format: "json", Columns: []string{"vtpm"}}, {Format: "value", Columns: []string{"name"}}, {Format: "markdown"}, {Format: "prometheus"},
	} {
		var got, want bytes.Buffer
		gerr, werr := Write(&got, o, v), Write(&want, o, v.Record())
		if got.String() != want.String() || (gerr == nil) != (werr == nil) {
			t.Errorf("%+v: %q (%v), want %q (%v)", o, got.String(), gerr, want.String(), werr)
		}
	}
}
