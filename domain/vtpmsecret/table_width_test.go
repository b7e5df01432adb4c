package vtpmsecret

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// fleetResult is a 2,000-guest audit as the synthetic cloud gives one:
// most guests pass, some warn on their ACL, some fail on their owner, one
// project is not auditable, a few run in host mode, and one has two
// findings.
func fleetResult(n int) *Result {
	pass := func(check CheckID) Finding { return Finding{Check: check, Status: result.Pass, Message: "fine"} }
	r := &Result{Schema: ResultSchema, Summary: Summary{Guests: n, Secrets: n}}
	for i := range n {
		g := GuestResult{
			Guest: Guest{ServerID: fmt.Sprintf("340ca71c-0001-4000-a000-%012x", i), Name: fmt.Sprintf("vm-%06d", i),
				ProjectID: fmt.Sprintf("340ca71c0000000700000000000000%02x", i%20), UserID: fmt.Sprintf("340ca71c0000000800000000%08x", i), Mode: nova.SecretUser},
			ProjectName: fmt.Sprintf("proj-%04d", i%20), OwnerName: fmt.Sprintf("user-%05d", i), SecretID: fmt.Sprintf("340ca71c-0002-4000-a000-%012x", i),
			Findings: []Finding{pass("SECRET-EXISTS"), pass("SECRET-OWNER"), pass("SECRET-STATE"), pass("OWNER-VALID"), pass("SECRET-ACL")},
			Cannot:   []string{"rebuild", "shelve", "rescue", "evacuate", "live-migration"},
		}
		switch {
		case i%100 == 50:
			g.Findings[3] = Finding{Check: "OWNER-VALID", Status: result.Fail, Message: "owner user-00052 (340ca71c000000080000000000000034) is disabled"}
		case i%10 == 7:
			g.Findings[4] = Finding{Check: "SECRET-ACL", Status: result.Warn, Message: "project-access=false: only the owner (and project admins or ACL users) can restart, resize or move this guest"}
		case i%20 == 13:
			g.Findings = []Finding{{Check: "PROJECT", Status: result.Skip, Message: "not auditable: 403 Forbidden"}}
			g.NotAudited = true
		case i%50 == 3:
			g.Mode, g.Cannot = nova.SecretHost, []string{"live-migration"}
		case i == 99:
			g.Findings[1] = Finding{Check: "SECRET-OWNER", Status: result.Fail, Message: "owned by admin, not by user-00099 (the guest's user)"}
			g.Findings[4] = Finding{Check: "SECRET-ACL", Status: result.Warn, Message: "project-access=false"}
		}
		r.Guests = append(r.Guests, g)
	}
	return r
}

// TestTableOneLinePerGuest: each guest of a 2,000-guest audit is one
// line of the default table at 120 columns (and unfitted), worst result
// first; fitted to 80 or 100 the lines run no wider than the IDs force,
// and at every width each server ID is shown whole, once; the footer is
// short.
func TestTableOneLinePerGuest(t *testing.T) {
	r := fleetResult(2000)
	for _, width := range []int{-1, 120, 100, 80} {
		var b bytes.Buffer
		if err := output.Write(&b, output.Options{Format: "table", MaxWidth: width}, r); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		widest := 0
		for _, l := range lines {
			widest = max(widest, utf8.RuneCountInString(l))
		}
		// result, the server ID, name, project name, mode and the longest
		// check's code: 6+36+9+12+4+12, and the borders
		if least := 79 + 19; width > 0 && widest > max(width, least) {
			t.Errorf("--max-width %d: a line %d wide", width, widest)
		}
		rows := 0
		for _, l := range lines {
			if strings.HasPrefix(l, "| ") {
				rows++
			}
		}
		if (width < 0 || width >= 120) && rows != 1+len(r.Guests) { // the header and one line a guest
			t.Errorf("--max-width %d: %d table lines for %d guests, want one a guest", width, rows-1, len(r.Guests))
		}
		for _, g := range r.Guests {
			if n := strings.Count(b.String(), g.ServerID); n != 1 {
				t.Fatalf("--max-width %d: guest %s: %d whole IDs in the table, want 1", width, g.ServerID, n)
			}
		}
		if width == 120 {
			for _, want := range []string{"| fail   | 340ca71c-0001-4000-a000-000000000032 | vm-000050 | proj-0010    | user | OWNER-VALID ", "| warn   | 340ca71c-0001-4000-a000-000000000007 ",
				"| skip   | 340ca71c-0001-4000-a000-00000000000d ", "| host |", "| SECRET-OWNER +1 |", "| pass   | 340ca71c-0001-4000-a000-000000000000 | vm-000000 | proj-0000    | user |                 |"} {
				if !strings.Contains(b.String(), want) {
					t.Errorf("no %q in the table", want)
				}
			}
			if !strings.HasPrefix(lines[3], "| fail ") || !strings.HasPrefix(lines[len(r.Guests)+2], "| pass ") {
				t.Errorf("not worst first: %q ... %q", lines[3], lines[len(r.Guests)+2])
			}
		}
		if foot := len(lines) - rows - 3; foot > 5 {
			t.Errorf("a %d-line footer: %q", foot, lines[rows+3:])
		}
	}
}

// TestTableColumns: table, value and csv show one column set, named as
// the guests' JSON keys, cells raw (an ID is an ID, a name a name); -c
// names any column, --long shows them all, a CSV record is one line.
func TestTableColumns(t *testing.T) {
	r := fleetResult(100)
	for _, c := range []struct {
		format  string
		long    bool
		columns []string
		first   string // the output's first line
	}{
		{"csv", false, nil, "result,server_id,name,project_name,mode,checks"},
		{"csv", true, nil, "result,server_id,name,project_id,project_name,user_id,owner_name,mode,secret_id,protection,checks,findings,cannot"},
		{"csv", false, []string{"server_id", "checks"}, "server_id,checks"},
		{"value", false, nil, "fail 340ca71c-0001-4000-a000-000000000032 vm-000050 proj-0010 user OWNER-VALID"},
		{"value", false, []string{"server_id", "name", "project_id", "owner_name", "secret_id", "result"}, "340ca71c-0001-4000-a000-000000000032 vm-000050 340ca71c00000007000000000000000a user-00050 340ca71c-0002-4000-a000-000000000032 fail"},
		{"table", false, []string{"server_id", "findings"}, "+---"},
	} {
		var b bytes.Buffer
		if err := output.Write(&b, output.Options{Format: c.format, Columns: c.columns, Long: c.long, MaxWidth: -1}, r); err != nil {
			t.Fatalf("%s %v: %v", c.format, c.columns, err)
		}
		if first, _, _ := strings.Cut(b.String(), "\n"); first != c.first && !strings.HasPrefix(first, c.first) || c.format != "table" && first != c.first {
			t.Errorf("%s %v: first line %q, want %q", c.format, c.columns, first, c.first)
		}
		if c.format == "csv" && strings.Count(b.String(), "\n") != 1+len(r.Guests) {
			t.Errorf("csv %v: %d lines for %d guests", c.columns, strings.Count(b.String(), "\n"), len(r.Guests))
		}
	}
}

// TestChecks: the short form of a guest's findings.
func TestChecks(t *testing.T) {
	f := func(check CheckID, s result.Status) Finding { return Finding{Check: check, Status: s} }
	for _, c := range []struct {
		findings []Finding
		want     string
	}{
		{nil, ""},
		{[]Finding{f("SECRET-EXISTS", result.Pass)}, ""},
		{[]Finding{f("SECRET-EXISTS", result.Pass), f("SECRET-ACL", result.Warn)}, "SECRET-ACL"},
		{[]Finding{f("SECRET-ACL", result.Warn), f("SECRET-OWNER", result.Fail)}, "SECRET-OWNER +1"},
		{[]Finding{f("SECRET-OWNER", result.Fail), f("SECRET-STATE", result.Fail), f("SECRET-ACL", result.Skip)}, "SECRET-OWNER +2"},
		{[]Finding{f("PROJECT", result.Skip)}, "PROJECT"},
	} {
		if got := checks(GuestResult{Findings: c.findings}); got != c.want {
			t.Errorf("checks(%v) = %q, want %q", c.findings, got, c.want)
		}
	}
}
