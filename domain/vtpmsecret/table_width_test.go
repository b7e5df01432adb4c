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

// TestTableOneLinePerGuestAt100: at 100 columns each guest of a
// 2,000-guest audit is one line of the default table, no line is wider
// than 100, and the footer is short.
func TestTableOneLinePerGuestAt100(t *testing.T) {
	r := fleetResult(2000)
	var b bytes.Buffer
	if err := output.Write(&b, output.Options{Format: "table", MaxWidth: 100}, r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	for i, l := range lines {
		if n := utf8.RuneCountInString(l); n > 100 {
			t.Fatalf("line %d is %d wide: %s", i+1, n, l)
		}
	}
	rows := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "| ") {
			rows++
		}
	}
	if rows != 1+len(r.Guests) { // the header and one line a guest
		t.Errorf("%d table lines for %d guests, want one a guest", rows-1, len(r.Guests))
	}
	for _, g := range []int{0, 50, 57, 13, 3, 99, 1999} {
		id := r.Guests[g].ServerID
		if n := strings.Count(b.String(), id); n != 1 {
			t.Errorf("guest %s: %d whole IDs in the table, want 1", id, n)
		}
	}
	for _, want := range []string{"| proj-0010    | user | fail OWNER-VALID", "| warn SECRET-ACL", "| skip PROJECT", "| host |", "| fail SECRET-OWNER +1"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in the table", want)
		}
	}
	if foot := len(lines) - rows - 3; foot > 5 {
		t.Errorf("a %d-line footer: %q", foot, lines[rows+3:])
	}
}

// TestTableColumns: the short columns are the table's alone; value and
// csv keep the columns scripts read, and -c still names every column.
func TestTableColumns(t *testing.T) {
	r := fleetResult(100)
	for _, c := range []struct {
		format  string
		columns []string
		first   string // the output's first line
	}{
		{"csv", nil, "server,project,owner,mode,secret,result,findings,cannot"},
		{"csv", []string{"server_id", "checks"}, "server_id,checks"},
		{"value", []string{"server", "project", "owner", "secret", "result"}, "vm-000000 (340ca71c-0001-4000-a000-000000000000) proj-0000 (340ca71c000000070000000000000000) user-00000 (340ca71c000000080000000000000000) 340ca71c-0002-4000-a000-000000000000 ok"},
		{"table", []string{"server", "findings"}, "+---"},
	} {
		var b bytes.Buffer
		if err := output.Write(&b, output.Options{Format: c.format, Columns: c.columns, MaxWidth: -1}, r); err != nil {
			t.Fatalf("%s %v: %v", c.format, c.columns, err)
		}
		if first, _, _ := strings.Cut(b.String(), "\n"); !strings.HasPrefix(first, c.first) {
			t.Errorf("%s %v: first line %q, want %q", c.format, c.columns, first, c.first)
		}
	}
	var b bytes.Buffer
	output.Write(&b, output.Options{Format: "value"}, r)
	if first, _, _ := strings.Cut(b.String(), "\n"); strings.Count(first, "340ca71c-0001-4000-a000-000000000000") != 1 {
		t.Errorf("value shows a short column: %q", first)
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
		{[]Finding{f("SECRET-EXISTS", result.Pass), f("SECRET-ACL", result.Warn)}, "warn SECRET-ACL"},
		{[]Finding{f("SECRET-ACL", result.Warn), f("SECRET-OWNER", result.Fail)}, "fail SECRET-OWNER +1"},
		{[]Finding{f("SECRET-OWNER", result.Fail), f("SECRET-STATE", result.Fail), f("SECRET-ACL", result.Skip)}, "fail SECRET-OWNER +2"},
		{[]Finding{f("PROJECT", result.Skip)}, "skip PROJECT"},
	} {
		if got := checks(GuestResult{Findings: c.findings}); got != c.want {
			t.Errorf("checks(%v) = %q, want %q", c.findings, got, c.want)
		}
	}
}
