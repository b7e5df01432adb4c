package devcloud

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// matrixEntry is one line of devcloud/matrix: where a live test runs.
type matrixEntry struct {
	where string // every, newest or only:R[,R…]
	line  int
}

func readMatrix(t *testing.T) map[string]matrixEntry {
	t.Helper()
	f, err := os.Open("matrix")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string]matrixEntry{}
	s := bufio.NewScanner(f)
	for n := 1; s.Scan(); n++ {
		line := s.Text()
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 2 {
			t.Errorf("matrix:%d: want TEST WHERE, got %q", n, s.Text())
			continue
		}
		name, where := fields[0], fields[1]
		if _, dup := m[name]; dup {
			t.Errorf("matrix:%d: %s named twice", n, name)
		}
		if where != "every" && where != "newest" && !regexp.MustCompile(`^only:(zed|20[0-9]{2}\.[12])(,(zed|20[0-9]{2}\.[12]))*$`).MatchString(where) {
			t.Errorf("matrix:%d: %s: WHERE %q is none of every, newest, only:R[,R…]", n, name, where)
		}
		m[name] = matrixEntry{where: where, line: n}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

var (
	testFunc = regexp.MustCompile(`(?m)^func (TestIntegration[A-Za-z0-9_]*)\(`)
	onlyCall = regexp.MustCompile(`devcloudtest\.Only\(t((?:, *"[^"]*")*)\)`)
)

// integrationTests: every TestIntegration function of the live tests, with
// the releases its own devcloudtest.Only names ("" when it calls none).
func integrationTests(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("../cmd/vtpmctl/*_integration_test.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no integration tests found under ../cmd/vtpmctl (%v)", err)
	}
	tests := map[string]string{}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		src := string(b)
		locs := testFunc.FindAllStringSubmatchIndex(src, -1)
		for i, loc := range locs {
			name := src[loc[2]:loc[3]]
			body := src[loc[0]:]
			if i+1 < len(locs) {
				body = src[loc[0]:locs[i+1][0]]
			}
			if end := strings.Index(body, "\n}\n"); end >= 0 {
				body = body[:end]
			}
			only := ""
			if m := onlyCall.FindStringSubmatch(body); m != nil {
				var rels []string
				for _, q := range regexp.MustCompile(`"([^"]*)"`).FindAllStringSubmatch(m[1], -1) {
					rels = append(rels, q[1])
				}
				only = strings.Join(rels, ",")
			}
			tests[name] = only
		}
	}
	return tests
}

// TestMatrix: devcloud/matrix names every live test once and nothing
// else, so integration.sh never runs a test on fewer releases than it
// should by forgetting it, and a test pinned by devcloudtest.Only says
// the same releases in both places.
func TestMatrix(t *testing.T) {
	m := readMatrix(t)
	tests := integrationTests(t)
	var names []string
	for n := range tests {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		e, ok := m[n]
		if !ok {
			t.Errorf("%s is not in devcloud/matrix: add it with every, newest or only:… and why", n)
			continue
		}
		only := tests[n]
		switch {
		case strings.HasPrefix(e.where, "only:"):
			if strings.TrimPrefix(e.where, "only:") != only {
				t.Errorf("matrix:%d: %s says %s, the test's devcloudtest.Only names %q", e.line, n, e.where, only)
			}
		case only != "":
			t.Errorf("matrix:%d: %s says %s, but the test pins itself with devcloudtest.Only(%s): say only:%s", e.line, n, e.where, only, only)
		}
	}
	for n, e := range m {
		if _, ok := tests[n]; !ok {
			t.Errorf("matrix:%d: %s: no such test in cmd/vtpmctl/*_integration_test.go", e.line, n)
		}
	}
}
