package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud/scale"
)

// scaleCloud is a synthetic cloud of n vTPM guests (20 projects, 100
// hypervisors, two orphaned secrets) named "scale" in a clouds.yaml of
// its own.
func scaleCloud(t *testing.T, n int) *scale.Cloud {
	t.Helper()
	c, err := scale.New(fakecloud.New(t), scale.Config{Guests: n, Projects: 20, Hypervisors: 100, Images: 2, Orphans: 2})
	if err != nil {
		t.Fatal(err)
	}
	clouds := filepath.Join(t.TempDir(), "clouds.yaml")
	if err := os.WriteFile(clouds, []byte(fakecloud.CloudsYAML("scale", c.URL, fakecloud.Scope{ProjectName: "admin"})), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OS_CLIENT_CONFIG_FILE", clouds)
	return c
}

// tableShape is what issue 41 measured of a table: its lines, its
// widest line, and the IDs it cut (shown nowhere whole).
type tableShape struct{ lines, widest, cut int }

func shapeOf(out string, ids []string) tableShape {
	var s tableShape
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		s.lines++
		s.widest = max(s.widest, utf8.RuneCountInString(l))
	}
	for _, id := range ids {
		if !strings.Contains(out, id) {
			s.cut++
		}
	}
	return s
}

// TestSecretsAuditTableKeepsIDsWhole is issue 41's measure on the
// synthetic cloud: secrets audit --all-projects at COLUMNS=80 and 120,
// as is, with --fit-width and with --max-width, default and --long,
// cuts no server, secret, project or instance ID and no name (before:
// at COLUMNS=80 every server UUID was cut in two, 2,006 lines became
// 4,494), draws one line a guest unless --long's lists take more, and
// runs wider than asked only as far as the IDs force. csv and value are
// a record a line, with the table's columns.
func TestSecretsAuditTableKeepsIDsWhole(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 60
	}
	c := scaleCloud(t, n)
	var guests, orphans []string
	for i := range n {
		guests = append(guests, c.ServerID(i))
	}
	for i := range 2 {
		orphans = append(orphans, c.ServerID(c.NumServers()+i))
	}
	audit := []string{"--os-cloud", "scale", "secrets", "audit", "--all-projects", "--include-orphans"}
	for _, columns := range []string{"80", "120"} {
		t.Setenv("COLUMNS", columns)
		for _, flags := range [][]string{nil, {"--fit-width"}, {"--max-width", columns}, {"--fit-width", "--long"}} {
			out, errs, code := runCLI(t, append(append([]string{}, flags...), audit...)...)
			if code != 0 && code != 1 {
				t.Fatalf("COLUMNS=%s %v: exit %d: %s", columns, flags, code, errs)
			}
			s := shapeOf(out, append(guests, orphans...))
			t.Logf("COLUMNS=%s %v: %d lines, widest %d, %d IDs cut", columns, flags, s.lines, s.widest, s.cut)
			if s.cut != 0 {
				t.Errorf("COLUMNS=%s %v: %d IDs cut", columns, flags, s.cut)
			}
			for _, id := range guests {
				if k := strings.Count(out, "| "+id+" |"); k != 1 {
					t.Fatalf("COLUMNS=%s %v: server %s in %d cells, want 1", columns, flags, id, k)
				}
			}
			for i := range n {
				if !strings.Contains(out, "| "+scale.GuestName(i)+" ") {
					t.Fatalf("COLUMNS=%s %v: name %s not whole", columns, flags, scale.GuestName(i))
				}
			}
			table, _, _ := strings.Cut(out, "Orphan")
			if rows := strings.Count(table, "\n| "); !strings.Contains(strings.Join(flags, " "), "--long") && rows != n+1 { // the header, a line a guest
				t.Errorf("COLUMNS=%s %v: %d table lines for %d guests", columns, flags, rows, n)
			}
			// fitted, the guests' table is as wide as its IDs and names
			// force (result 6, server ID 36, name 9, project name 12,
			// mode 4, checks 11: 97 with borders), or the width asked
			if len(flags) > 0 && !strings.Contains(strings.Join(flags, " "), "--long") {
				first := strings.SplitN(out, "\n", 2)[0]
				if w := utf8.RuneCountInString(first); w > max(atoi(columns), 97) {
					t.Errorf("COLUMNS=%s %v: the guests' table is %d wide", columns, flags, w)
				}
			}
		}
	}
	for _, f := range []string{"csv", "value"} {
		for _, long := range []bool{false, true} {
			args := append([]string{"-f", f}, audit...)
			if long {
				args = append([]string{"--long"}, args...)
			}
			out, errs, code := runCLI(t, args...)
			if code != 0 && code != 1 {
				t.Fatalf("-f %s: exit %d: %s", f, code, errs)
			}
			want := n
			if f == "csv" {
				want++
				recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
				if err != nil || len(recs) != want || strings.Join(recs[0][:3], ",") != "result,server_id,name" {
					t.Errorf("-f csv --long=%v: %d records, %v, header %v", long, len(recs), err, recs[0])
				}
			}
			if got := strings.Count(out, "\n"); got != want {
				t.Errorf("-f %s --long=%v: %d lines for %d guests", f, long, got, n)
			}
			if s := shapeOf(out, guests); s.cut != 0 || f == "csv" && strings.Contains(out, orphans[0]) {
				t.Errorf("-f %s: %d IDs missing", f, s.cut)
			}
		}
	}
}

func atoi(s string) int {
	n := 0
	for _, r := range s {
		n = n*10 + int(r-'0')
	}
	return n
}
