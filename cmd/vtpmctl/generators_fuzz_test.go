package main

import (
	"bytes"
	"encoding/csv"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/migration"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/quote"
)

var hostileNames = []string{
	"plain", "it's", "a\nb", "vTPM secret for instance deadbeef\ntouch /tmp/x #", "$(touch /tmp/x)", "`id`", "=cmd|' /C calc'!A0",
	"+1", "-2", "@SUM(1)", "\ttab", "\x1b]0;title\x07\x1b[2J", "x\u2028y", "a|b*c_d[e](f)<script>", "## heading", "\\", "'", "",
	"\u009b31m", "-rf", "a;b&c",
}

const orphanID, orphanInstance = "6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d11", "0a1b2c3d-0000-4000-8000-000000000001"

func cleanupPlan(t testing.TB, name string) string {
	var out bytes.Buffer
	res := vtpmsecret.Result{NotAuditable: map[string]vtpmsecret.NotAuditable{name: {Detail: "why " + name}}}
	res.Orphans = []vtpmsecret.Orphan{
		{Secret: vtpmsecret.Secret{ID: orphanID, InstanceID: orphanInstance, ProjectID: name, CreatorID: name}, Kind: vtpmsecret.OrphanGone, Reason: name, AgeSeconds: 3 * 86400},
		{Secret: vtpmsecret.Secret{ID: orphanID, InstanceID: name, ProjectID: name}, Kind: vtpmsecret.OrphanDuplicate, Reason: "duplicate " + name},
		{Secret: vtpmsecret.Secret{ID: name, InstanceID: name, ProjectID: name}, Kind: vtpmsecret.OrphanLive, Live: true, Reason: name},
		{Secret: vtpmsecret.Secret{ID: name, InstanceID: orphanInstance, ProjectID: name}, Kind: vtpmsecret.OrphanGone, Reason: name}, // not Nova's form: no delete line
	}
	proof := vtpmsecret.ServerProof{Servers: map[string]nova.ExistenceProof{orphanInstance: {State: nova.ServerGone}}}
	plan := vtpmsecret.NewCleanupPlan(res, vtpmsecret.Origin{Cloud: name, SecretsURL: "https://kms.example:9311/v1/secrets/"}, proof, time.Now())
	if err := plan.Script(&out, "vtpmctl secrets audit --cleanup-plan"); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// shWords splits one line the way sh would, for lines made only of bare
// words and single-quoted strings; ok is false when anything else (an
// operator, an expansion, a double quote) stands outside quotes.
func shWords(line string) (words []string, ok bool) {
	var cur strings.Builder
	in, have, esc := false, false, false
	for i := 0; i < len(line); i++ { // bytes: every special character is ASCII
		c := line[i]
		switch {
		case esc:
			cur.WriteByte(c)
			esc, have = false, true
		case in && c == '\'':
			in = false
		case in:
			cur.WriteByte(c)
		case c == '\\':
			esc = true
		case c == '\'':
			in, have = true, true
		case c == ' ':
			if have {
				words = append(words, cur.String())
				cur.Reset()
				have = false
			}
		case strings.IndexByte("|&;<>()$`\"*?[#~!{}\t\n\r", c) >= 0:
			return nil, false
		default:
			cur.WriteByte(c)
			have = true
		}
	}
	if in || esc {
		return nil, false
	}
	if have {
		words = append(words, cur.String())
	}
	return words, true
}

func checkCleanupPlan(t testing.TB, name, script string) {
	deletes := 0
	for _, l := range strings.Split(strings.TrimSuffix(script, "\n"), "\n") {
		switch {
		case l == "#!/bin/sh", l == "set -eu", strings.HasPrefix(l, "# "):
			continue
		}
		w, ok := shWords(l)
		if !ok {
			t.Fatalf("name %q: line is not plain words: %q", name, l)
		}
		want := []string{"openstack", "--os-cloud", name, "--os-project-id", name, "secret", "delete", "https://kms.example:9311/v1/secrets/" + orphanID}
		if name == "" {
			want = append(want[:1], want[3:]...)
		}
		if strings.Join(w, "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("name %q: words %q, want %q", name, w, want)
		}
		deletes++
	}
	want := 1
	if quote.HasControl(name) {
		want = 0
	}
	if deletes != want {
		t.Fatalf("name %q: %d delete lines, want 1:\n%s", name, deletes, script)
	}
	if !strings.Contains(script, "WARNING: 1 project(s) could not be audited") {
		t.Fatalf("unaudited project not in the header:\n%s", script)
	}
}

func checklistOf(name string) *migration.Plan {
	p, _ := migration.Import([]migration.SourceVM{{Name: name, GuestID: "windows11_64Guest", Firmware: "efi", VTPM: "unknown", VCPUs: 2, MemoryMiB: 4096}}, migration.ImportOptions{})
	return p
}

func checkChecklist(t testing.TB, name string) {
	p := checklistOf(name)
	var md bytes.Buffer
	output.Write(&md, output.Options{Format: "table"}, migration.NewChecklist(p))
	headings := 0
	for _, l := range strings.Split(md.String(), "\n") {
		if strings.HasPrefix(l, "#") {
			headings++
		}
		for _, r := range l {
			if r < 0x20 && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f {
				t.Fatalf("name %q: control character in markdown line %q", name, l)
			}
		}
	}
	if headings != 2 { // "# Cutover checklist" and the VM's
		t.Fatalf("name %q: %d heading lines in the markdown:\n%s", name, headings, md.String())
	}
	var c bytes.Buffer
	output.Write(&c, output.Options{Format: "csv", Explicit: true}, migration.NewChecklist(p))
	text := c.String()
	recs, err := csv.NewReader(&c).ReadAll()
	if err != nil {
		t.Fatalf("name %q: csv does not parse: %v", name, err)
	}
	for _, r := range recs[1:] {
		for _, cell := range r {
			if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
				t.Fatalf("name %q: csv cell starts a formula: %q", name, cell)
			}
		}
		// a CSV record is one line: the name's lines joined by "; "
		want := name
		if strings.ContainsAny(name, "\r\n") {
			want = strings.Join(strings.FieldsFunc(strings.ReplaceAll(name, "\r\n", "\n"), func(r rune) bool { return r == '\n' || r == '\r' }), "; ")
		}
		want = quote.CSVCell(want)
		if strings.ContainsAny(text, "\r") || strings.Count(text, "\n") != len(recs) {
			t.Fatalf("name %q: csv records span lines:\n%q", name, text)
		}
		if r[0] != want {
			t.Fatalf("name %q: csv vm cell %q", name, r[0])
		}
	}
	for _, it := range migration.Checklist(p) {
		if strings.Contains(it.Item, "govc") {
			w, ok := shWords(strings.TrimSuffix(strings.SplitN(it.Item, ": ", 2)[1], " | grep VirtualTPM"))
			if !ok || len(w) != 5 || w[4] != name {
				t.Fatalf("name %q: govc command %q splits into %q", name, it.Item, w)
			}
		}
	}
}

func checkTable(t testing.TB, name string) {
	for _, f := range []string{"table", "value"} {
		var b bytes.Buffer
		output.PrintList(output.TerminalWriter(&b), output.Options{Format: f}, []string{"server", "reason"},
			[]output.Record{{{Name: "server", Value: name}, {Name: "reason", Value: []string{name, "x"}}}})
		for _, r := range b.String() {
			if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f {
				t.Fatalf("name %q: control character %U in %s output", name, r, f)
			}
		}
	}
}

func FuzzGenerators(f *testing.F) {
	for _, n := range hostileNames {
		f.Add(n)
	}
	f.Fuzz(func(t *testing.T, name string) {
		checkCleanupPlan(t, name, cleanupPlan(t, name))
		checkChecklist(t, name)
		checkTable(t, name)
	})
}

// TestCleanupPlanParsesWithSh: sh itself reads each hostile plan without
// a syntax error, and running it (with openstack a function that prints
// its arguments) runs nothing else.
func TestCleanupPlanParsesWithSh(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	for _, n := range hostileNames {
		script := cleanupPlan(t, n)
		if out, err := exec.Command("sh", "-n", "-c", script).CombinedOutput(); err != nil {
			t.Errorf("name %q: sh -n: %v %s\n%s", n, err, out, script)
		}
		run := "openstack() { printf '[%s]' \"$@\"; echo; }\n" + strings.TrimPrefix(script, "#!/bin/sh\n")
		cmd := exec.Command("sh", "-c", run)
		cmd.Dir = t.TempDir()
		cmd.Env = []string{"PATH=/nonexistent"} // a command other than the function fails
		out, err := cmd.CombinedOutput()
		want := 1
		if quote.HasControl(n) {
			want = 0
		}
		if err != nil || strings.Count(string(out), "\n") != want || strings.Count(string(out), "[delete]") != want {
			t.Errorf("name %q: running the plan: %v\n%s", n, err, out)
		}
	}
}
