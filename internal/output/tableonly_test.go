package output

import (
	"bytes"
	"testing"
)

// shortResult has a table-only column: a short form of a long one.
type shortResult struct{}

func (shortResult) Table() Table {
	return Table{Columns: []string{"host", "note", "code"}, Default: []string{"host", "code"}, TableOnly: []string{"code"},
		Rows: []Record{{{Name: "host", Value: "h1"}, {Name: "note", Value: "the hypervisor is down"}, {Name: "code", Value: "DOWN"}}}}
}

// TestTableOnly: a table-only column shows in the table (by default or
// with -c) and never in value or csv unless -c names it, so what scripts
// read does not change when a table gains a short column.
func TestTableOnly(t *testing.T) {
	for _, c := range []struct {
		format  string
		columns []string
		want    string
	}{
		{"value", nil, "h1 the hypervisor is down\n"},
		{"csv", nil, "host,note\nh1,the hypervisor is down\n"},
		{"value", []string{"code"}, "DOWN\n"},
		{"csv", []string{"host", "code"}, "host,code\nh1,DOWN\n"},
		{"table", nil, "+------+------+\n| host | code |\n+------+------+\n| h1   | DOWN |\n+------+------+\n"},
		{"table", []string{"note"}, "+------------------------+\n| note                   |\n+------------------------+\n| the hypervisor is down |\n+------------------------+\n"},
	} {
		var b bytes.Buffer
		if err := Write(&b, Options{Format: c.format, Columns: c.columns, MaxWidth: -1}, shortResult{}); err != nil {
			t.Fatalf("%s %v: %v", c.format, c.columns, err)
		}
		if b.String() != c.want {
			t.Errorf("%s %v:\n%s\nwant\n%s", c.format, c.columns, b.String(), c.want)
		}
	}
}
