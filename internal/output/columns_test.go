package output

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// auditLike is a result shaped as the audits' tables: a verdict, IDs,
// names (one with spaces), a host, short codes, free text, a list and an
// optional column empty in every row. walks counts the walks of its rows.
type auditLike struct {
	rows  []Record
	walks *int
}

var auditColumns = []string{"result", "server_id", "name", "project_id", "host", "checks", "findings", "cannot", "unused"}

func newAuditLike(n int) auditLike {
	statuses := []string{"pass", "warn", "pass", "fail", "skip", "pass", "pass"}
	var rows []Record
	for i := range n {
		st := statuses[i%len(statuses)]
		findings := []string{}
		checks := ""
		if st != "pass" {
			checks = "SECRET-ACL +1"
			findings = []string{st + " SECRET-ACL: project-access=false: only the owner (and project admins or ACL users) can restart, resize or move this guest",
				"OWNER-VALID: owner user-00052 (340ca71c000000080000000000000034) is disabled"}
		}
		rows = append(rows, Record{{"result", st}, {"server_id", fmt.Sprintf("340ca71c-0001-4000-a000-%012x", i)},
			{"name", fmt.Sprintf("vm %06d of the web tier", i)}, {"project_id", fmt.Sprintf("340ca71c0000000700000000000000%02x", i%20)},
			{"host", fmt.Sprintf("cmp-%05d.compute.example.org", i%7)}, {"checks", checks}, {"findings", findings},
			{"cannot", []string{"rebuild", "live-migration"}}, {"unused", ""}})
	}
	return auditLike{rows: rows, walks: new(int)}
}

func (a auditLike) Table() Table {
	return Table{Columns: auditColumns, Verdict: "result", Wrap: []string{"checks", "findings"},
		Default: []string{"result", "server_id", "name", "project_id", "host", "checks", "unused"},
		Walk: func(yield func(Record) bool) {
			*a.walks++
			for _, r := range a.rows {
				if !yield(r) {
					return
				}
			}
		}, Footer: []string{"guests 40: see 340ca71c-9999-4000-a000-000000000000 and the rest of the footer's words"}}
}

// unbroken are the cells no table may cut: IDs, names, hosts.
func (a auditLike) unbroken() []string {
	var out []string
	for _, r := range a.rows {
		for _, c := range []string{"server_id", "name", "project_id", "host"} {
			out = append(out, r.Get(c).(string))
		}
	}
	return append(out, "340ca71c-9999-4000-a000-000000000000") // the footer's
}

func widest(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		n = max(n, utf8.RuneCountInString(l))
	}
	return n
}

// TestIDsNeverSplit: at every width from 20 to 200, by --max-width and
// by --fit-width with COLUMNS, default and --long, every ID, name and
// host of every row is on one line, whole, as often as there are rows
// (none cut, none lost); and no line is wider than the width unless the
// unbreakable cells force it (the least the table can be).
func TestIDsNeverSplit(t *testing.T) {
	a := newAuditLike(40)
	var natural bytes.Buffer
	if err := Write(&natural, Options{Format: "table"}, a); err != nil {
		t.Fatal(err)
	}
	for w := 20; w <= 200; w++ {
		for _, o := range []Options{{Format: "table", MaxWidth: w}, {Format: "table", MaxWidth: w, Long: true}, {Format: "table", FitWidth: true}} {
			t.Setenv("COLUMNS", fmt.Sprint(w))
			var b bytes.Buffer
			if err := Write(&b, o, a); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			for _, u := range a.unbroken() {
				want := 1
				if strings.HasPrefix(u, "cmp-") || strings.HasPrefix(u, "340ca71c00") {
					want = strings.Count(natural.String(), u) // shared by several rows
				}
				if got := strings.Count(out, u); got != want {
					t.Fatalf("width %d %+v: %q shown whole %d times, want %d:\n%s", w, o, u, got, want, out)
				}
			}
			// the least: each unbreakable column's widest cell, each
			// free-text column's longest word, the borders
			least := 1
			cols := a.Table().Default
			if o.Long {
				cols = auditColumns
			}
			for _, c := range cols {
				if c == "unused" {
					continue
				}
				n := len(c)
				for _, r := range a.rows {
					if c == "checks" || c == "findings" {
						n = max(n, longestWord(cellString(r.Get(c))))
					} else {
						n = max(n, widestLine(cellString(r.Get(c))))
					}
				}
				least += n + 3
			}
			if got := widest(out); got > max(w, least) {
				t.Errorf("width %d %+v: a line %d wide (the least is %d)", w, o, got, least)
			}
		}
	}
}

// TestMaxWidthExact: --max-width N draws lines exactly N wide when the
// table is wider and its unbreakable cells fit in N, its natural width
// when it is narrower, and only what its unbreakable cells force when
// they do not fit; the footer (one line here) is no wider.
func TestMaxWidthExact(t *testing.T) {
	a := newAuditLike(10)
	var nat bytes.Buffer
	Write(&nat, Options{Format: "table", Long: true}, a)
	natural := widest(nat.String())
	for _, c := range []struct{ max, want int }{
		{natural + 10, natural}, {natural, natural}, {natural - 1, natural - 1}, {250, 250}, {220, 220},
		{120, 0}, // the IDs, names and hosts alone are wider: the least
	} {
		var b bytes.Buffer
		if err := Write(&b, Options{Format: "table", MaxWidth: c.max, Long: true}, a); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		table := lines[:len(lines)-1]
		got := widest(strings.Join(table, "\n"))
		if c.want == 0 {
			if got <= c.max {
				t.Errorf("--max-width %d: the table is %d wide, narrower than its IDs allow", c.max, got)
			}
		} else if got != c.want {
			t.Errorf("--max-width %d (natural %d): lines %d wide, want %d", c.max, natural, got, c.want)
		}
		for _, l := range table {
			if n := utf8.RuneCountInString(l); n != got {
				t.Errorf("--max-width %d: a ragged line (%d, not %d): %q", c.max, n, got, l)
			}
		}
		foot := strings.Join(lines[len(table):], "\n")
		if widest(foot) > c.max {
			t.Errorf("--max-width %d: footer %d wide: %q", c.max, widest(foot), foot)
		}
	}
}

// TestEmptyColumnsDropped: a column empty in every row is not drawn,
// unless -c names it; a table without rows keeps its header; value and
// csv keep it (their columns do not depend on the data).
func TestEmptyColumnsDropped(t *testing.T) {
	a := newAuditLike(3)
	var b bytes.Buffer
	Write(&b, Options{Format: "table"}, a)
	if strings.Contains(b.String(), "unused") || !strings.Contains(b.String(), "| checks") {
		t.Errorf("default table:\n%s", b.String())
	}
	b.Reset()
	Write(&b, Options{Format: "table", Columns: []string{"server_id", "unused"}}, a)
	if !strings.Contains(b.String(), "| unused |") {
		t.Errorf("-c unused:\n%s", b.String())
	}
	b.Reset()
	Write(&b, Options{Format: "table"}, List{Columns: []string{"a", "b"}})
	if b.String() != "+---+---+\n| a | b |\n+---+---+\n+---+---+\n" {
		t.Errorf("no rows:\n%s", b.String())
	}
	b.Reset()
	Write(&b, Options{Format: "csv"}, a)
	if head, _, _ := strings.Cut(b.String(), "\n"); head != "result,server_id,name,project_id,host,checks,unused" {
		t.Errorf("csv header %q", head)
	}
}

// TestCSVOneLinePerRecord: a CSV record is one line, whatever its lists
// and line breaks (a list's items joined by "; "), and reads back as the
// same number of records with the table's columns.
func TestCSVOneLinePerRecord(t *testing.T) {
	a := newAuditLike(50)
	a.rows[1][6].Value = []string{"two\nlines", "and\r\nthree"}
	for _, long := range []bool{false, true} {
		var b bytes.Buffer
		if err := Write(&b, Options{Format: "csv", Long: long}, a); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(b.String(), "\n"); n != len(a.rows)+1 {
			t.Errorf("long %v: %d lines for %d records and a header", long, n, len(a.rows))
		}
		recs, err := csv.NewReader(&b).ReadAll()
		if err != nil || len(recs) != len(a.rows)+1 {
			t.Fatalf("long %v: %d records, %v", long, len(recs), err)
		}
		if long && !slices.ContainsFunc(recs, func(r []string) bool {
			return slices.Contains(r, "warn SECRET-ACL: project-access=false: only the owner (and project admins or ACL users) can restart, resize or move this guest; OWNER-VALID: owner user-00052 (340ca71c000000080000000000000034) is disabled")
		}) {
			t.Errorf("findings not joined by \"; \": %q", recs)
		}
	}
	var b bytes.Buffer
	Write(&b, Options{Format: "csv", Columns: []string{"findings"}, SortColumns: []string{"server_id"}}, a)
	if !strings.Contains(b.String(), "\ntwo; lines; and; three\n") {
		t.Errorf("line breaks in a list item: %q", b.String())
	}
}

// TestOneColumnSet: table, value and csv show the same columns in the
// same order by default, with --long and with -c.
func TestOneColumnSet(t *testing.T) {
	a := newAuditLike(5)
	for _, o := range []Options{{}, {Long: true}, {Columns: []string{"name", "result"}}} {
		var tb, csvb, vb bytes.Buffer
		o.Format = "table"
		Write(&tb, o, a)
		o.Format = "csv"
		Write(&csvb, o, a)
		o.Format = "value"
		Write(&vb, o, a)
		lines := strings.Split(tb.String(), "\n")
		var head []string
		for _, c := range strings.Split(strings.Trim(lines[1], "|"), "|") {
			head = append(head, strings.TrimSpace(c))
		}
		csvHead, _, _ := strings.Cut(csvb.String(), "\n")
		want := strings.Split(csvHead, ",")
		if len(o.Columns) == 0 {
			want = slices.DeleteFunc(want, func(c string) bool { return c == "unused" }) // empty: not drawn
		}
		if !slices.Equal(head, want) {
			t.Errorf("%+v: table columns %v, csv %v", o, head, want)
		}
		first, _, _ := strings.Cut(vb.String(), "\n")
		if o.Long && !strings.HasPrefix(first, "fail 340ca71c-0001-4000-a000-000000000003 vm 000003 of the web tier ") {
			t.Errorf("value, --long: %q", first)
		}
	}
}

// TestVerdictOrder: rows come worst first (fail, warn, skip, pass), each
// status's rows in the result's order, in table, value and csv; a walked
// table is walked once to measure and once per status present, never
// held; --sort-column orders by the named columns, --sort-descending
// reverses.
func TestVerdictOrder(t *testing.T) {
	a := newAuditLike(7) // pass warn pass fail skip pass pass
	col := func(o Options, c string) []string {
		o.Format, o.Columns = "value", []string{c}
		var b bytes.Buffer
		if err := Write(&b, o, a); err != nil {
			t.Fatal(err)
		}
		return strings.Fields(b.String())
	}
	for _, c := range []struct {
		o    Options
		col  string
		want string
	}{
		{Options{}, "result", "fail warn skip pass pass pass pass"},
		{Options{}, "server_id", "340ca71c-0001-4000-a000-000000000003 340ca71c-0001-4000-a000-000000000001 340ca71c-0001-4000-a000-000000000004 340ca71c-0001-4000-a000-000000000000 340ca71c-0001-4000-a000-000000000002 340ca71c-0001-4000-a000-000000000005 340ca71c-0001-4000-a000-000000000006"},
		{Options{SortDescending: true}, "result", "pass pass pass pass skip warn fail"},
		{Options{SortColumns: []string{"server_id"}, SortDescending: true}, "server_id", "340ca71c-0001-4000-a000-000000000006 340ca71c-0001-4000-a000-000000000005 340ca71c-0001-4000-a000-000000000004 340ca71c-0001-4000-a000-000000000003 340ca71c-0001-4000-a000-000000000002 340ca71c-0001-4000-a000-000000000001 340ca71c-0001-4000-a000-000000000000"},
		{Options{SortColumns: []string{"host"}}, "host", "cmp-00000.compute.example.org cmp-00001.compute.example.org cmp-00002.compute.example.org cmp-00003.compute.example.org cmp-00004.compute.example.org cmp-00005.compute.example.org cmp-00006.compute.example.org"},
		{Options{SortColumns: []string{"result", "server_id"}}, "result", "fail warn skip pass pass pass pass"},
	} {
		if got := strings.Join(col(c.o, c.col), " "); got != c.want {
			t.Errorf("%+v -c %s: %s, want %s", c.o, c.col, got, c.want)
		}
	}
	*a.walks = 0
	var b bytes.Buffer
	Write(&b, Options{Format: "table"}, a)
	if *a.walks != 1+4 {
		t.Errorf("the table walked its rows %d times, want 5 (widths, then one per status present)", *a.walks)
	}
	if i, j := strings.Index(b.String(), "| fail"), strings.Index(b.String(), "| pass"); i < 0 || j < i {
		t.Errorf("not worst first:\n%s", b.String())
	}
	if err := Write(&b, Options{Format: "table", SortColumns: []string{"nope"}}, a); err == nil {
		t.Error("--sort-column nope: no error")
	}
}
