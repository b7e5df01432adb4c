package output

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/internal/result"
)

type (
	textMode  string
	textFlag  bool
	textCount int
	textSmall uint8
	textRatio float64
	textVer   struct{ Major, Minor int }
	textName  struct{ s string }
)

func (v textVer) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

func (n textName) MarshalText() ([]byte, error) { return []byte(n.s), nil }

// TestTypedCellsArePlainText: a typed value (a named string, bool or
// number, a Stringer, a TextMarshaler, a pointer to one, a list or map of
// them) shows in every text format exactly as its plain equivalent: its
// JSON form (`"user"`, `"""user"""` in CSV) is for -f json.
func TestTypedCellsArePlainText(t *testing.T) {
	mode := textMode("user")
	when := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		typed, plain any
	}{
		{textMode("user"), "user"},
		{result.Status("FAIL"), "FAIL"},
		{textFlag(true), true},
		{textCount(42), 42},
		{textSmall(7), 7},
		{textRatio(1.5), 1.5},
		{textVer{2, 98}, "2.98"},
		{textName{"n-1"}, "n-1"},
		{when, "2025-03-01T12:00:00Z"},
		{&mode, "user"},
		{(*textMode)(nil), nil},
		{[]textMode{"user", "host"}, []string{"user", "host"}},
		{map[string]textMode{"b": "host", "a": "user"}, map[string]string{"b": "host", "a": "user"}},
		{[]textCount{1, 2}, []int{1, 2}},
	} {
		for _, f := range []string{"table", "value", "csv"} {
			got, want := render(t, f, tc.typed), render(t, f, tc.plain)
			if got != want {
				t.Errorf("%T -f %s:\n%s\nwant\n%s", tc.typed, f, got, want)
			}
		}
		if got, want := TableLines([]string{"v"}, []Record{{{Name: "v", Value: tc.typed}}}), TableLines([]string{"v"}, []Record{{{Name: "v", Value: tc.plain}}}); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%T TableLines: %q, want %q", tc.typed, got, want)
		}
	}
}

// render writes v as a one-column list and as a one-field record.
func render(t *testing.T, format string, v any) string {
	t.Helper()
	var b bytes.Buffer
	o := Options{Format: format, Explicit: true}
	list := List{Columns: []string{"v"}, Rows: []Record{{{Name: "v", Value: v}}}}
	if err := Write(&b, o, list); err != nil {
		t.Fatal(err)
	}
	if err := Write(&b, o, Record{{Name: "v", Value: v}}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
