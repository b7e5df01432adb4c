package output

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

var rec = Record{{"name", "w1"}, {"traits", []string{"A", "B"}}, {"vtpm", "yes"}}

func TestPrintRecord(t *testing.T) {
	cases := []struct {
		o    Options
		want string
	}{
		{Options{Format: "table"}, "+--------+-------+\n| Field  | Value |\n+--------+-------+\n| name   | w1    |\n| traits | A     |\n|        | B     |\n| vtpm   | yes   |\n+--------+-------+\n"},
		{Options{Format: "json", Columns: []string{"vtpm", "traits"}}, "{\n  \"vtpm\": \"yes\",\n  \"traits\": [\n    \"A\",\n    \"B\"\n  ]\n}\n"},
		{Options{Format: "yaml", Columns: []string{"traits"}}, "traits:\n  - A\n  - B\n"},
		{Options{Format: "value", Columns: []string{"TRAITS", "name"}}, "A B\nw1\n"},
	}
	for _, c := range cases {
		var b bytes.Buffer
		if err := PrintRecord(&b, c.o, rec); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("%+v:\n%s\nwant\n%s", c.o, b.String(), c.want)
		}
	}
}

func TestPrintList(t *testing.T) {
	cols := []string{"id", "name"}
	recs := []Record{{{"id", "1"}, {"name", "a"}}, {{"id", "2"}, {"name", "bé"}}}
	var b bytes.Buffer
	if err := PrintList(&b, Options{Format: "table"}, cols, recs); err != nil {
		t.Fatal(err)
	}
	want := "+----+------+\n| id | name |\n+----+------+\n| 1  | a    |\n| 2  | bé   |\n+----+------+\n"
	if b.String() != want {
		t.Errorf("got\n%s", b.String())
	}
	b.Reset()
	PrintList(&b, Options{Format: "json", Columns: []string{"name"}}, cols, recs)
	if got := strings.Join(strings.Fields(b.String()), ""); got != `[{"name":"a"},{"name":"bé"}]` {
		t.Errorf("json %s", got)
	}
	b.Reset()
	PrintList(&b, Options{Format: "value"}, cols, recs)
	if b.String() != "1 a\n2 bé\n" {
		t.Errorf("value %q", b.String())
	}
	var ce *ColumnError
	if err := PrintList(&b, Options{Columns: []string{"x"}}, cols, recs); !errors.As(err, &ce) {
		t.Errorf("want ColumnError, got %v", err)
	}
}

func TestValidate(t *testing.T) {
	for _, f := range []string{"", "table", "json", "yaml", "value", "csv", "markdown"} {
		if err := (Options{Format: f}).Validate(); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if err := (Options{Format: "xml"}).Validate(); err == nil {
		t.Error("xml accepted")
	}
}
