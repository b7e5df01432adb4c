package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/vtpmctl/vtpmctl/internal/quote"
	"github.com/vtpmctl/vtpmctl/internal/redact"
)

// leakyResult carries a server's error text, as barbican's "not
// auditable" reasons do, in a field, a table cell and its markdown.
type leakyResult struct {
	NotAuditable map[string]string `json:"not_auditable"`
}

func (r leakyResult) Table() Table {
	return Table{Columns: []string{"project", "reason"}, Rows: []Record{{{Name: "project", Value: "p1"}, {Name: "reason", Value: r.NotAuditable["p1"]}}}}
}

func (r leakyResult) Markdown(w io.Writer) error {
	_, err := fmt.Fprintf(w, "# Audit\n\n- p1: %s\n", quote.Markdown(r.NotAuditable["p1"]))
	return err
}

// TestResultsRedacted: a registered token in a result's text is scrubbed
// in every format, the way markdown and JSON encode it included.
func TestResultsRedacted(t *testing.T) {
	const tok = "gAAAAABresult_tok-9Qx<&"
	redact.Register(tok)
	reason := `HTTP 403: {"error":"token ` + tok + ` may not list secrets"}`
	for _, v := range []any{leakyResult{NotAuditable: map[string]string{"p1": reason}}, Record{{Name: "reason", Value: reason}}} {
		for _, f := range []string{"table", "json", "yaml", "value", "csv", "markdown"} {
			if _, rec := v.(Record); rec && f == "markdown" {
				continue
			}
			var b bytes.Buffer
			if err := Write(&b, Options{Format: f, Explicit: true}, v); err != nil {
				t.Fatalf("%T -f %s: %v", v, f, err)
			}
			mark := redact.Mark
			if f == "markdown" {
				mark = redact.EscapedMark
			}
			out := b.String()
			if strings.Contains(out, "result_tok") || !strings.Contains(out, mark) {
				t.Errorf("%T -f %s:\n%s", v, f, out)
			}
		}
	}
}

// TestMarkdownRedactedVisibly: in markdown the mark is escaped, so a
// viewer shows it; the plain mark is an HTML tag it would hide. That
// holds for -f markdown and for a document's default format.
func TestMarkdownRedactedVisibly(t *testing.T) {
	const tok = "gAAAAABmd-tok_7Rk"
	redact.Register(tok)
	v := leakyResult{NotAuditable: map[string]string{"p1": "token " + tok + " may not list secrets; see https://u:pw@kv/x"}}
	for _, o := range []Options{{Format: "markdown", Explicit: true}, {}} {
		var b bytes.Buffer
		if err := Write(&b, o, v); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if want := "token &lt;redacted&gt; may not list secrets; see https://&lt;redacted&gt;@kv/x"; !strings.Contains(out, want) || strings.Contains(out, redact.Mark) {
			t.Errorf("%+v: got\n%s\nwant a line with %s", o, out, want)
		}
	}
}

// auditResult is a rendered result in which the common passwords appear
// as keys, in its schema, as literals and numbers and in prose.
type auditResult struct {
	Schema   string            `json:"schema"`
	SecretID string            `json:"secret_id"`
	Hosts    []auditHost       `json:"hosts"`
	Reasons  map[string]string `json:"not_auditable"`
}

type auditHost struct {
	Name    string `json:"name"`
	Admin   bool   `json:"admin"`
	Enabled bool   `json:"enabled"`
	VCPUs   int    `json:"vcpus"`
}

// TestPasswordKeepsOutput: a password that is a word, a literal or a
// number ("secret", "admin", "false", "1234") leaves -f json and -f yaml
// byte for byte as they were, valid, keys intact; where it is a whole
// string value it is removed.
func TestPasswordKeepsOutput(t *testing.T) {
	v := auditResult{Schema: "vtpmctl.secrets-audit/1", SecretID: "secret-1234",
		Hosts:   []auditHost{{"admin-1", false, true, 1234}, {"cmp-false", true, false, 12}},
		Reasons: map[string]string{"admin": "the secret is not the admin's: false at 1234", "secret": "1234 secrets"}}
	render := func(f string, v any) string {
		var b bytes.Buffer
		if err := Write(&b, Options{Format: f, Explicit: true}, v); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	before := map[string]string{"json": render("json", v), "yaml": render("yaml", v)}
	for _, pw := range []string{"secret", "admin", "false", "1234"} {
		redact.RegisterPassword(pw)
	}
	for f, want := range before {
		out := render(f, v)
		var got, orig any
		if err := unmarshal(f, out, &got); err != nil {
			t.Fatalf("-f %s no longer parses: %v\n%s", f, err, out)
		}
		unmarshal(f, want, &orig)
		if out != want || !reflect.DeepEqual(got, orig) {
			t.Errorf("-f %s changed:\n%s\nwas\n%s", f, out, want)
		}
	}
	v.Hosts[0].Name = "admin"
	if out := render("json", v); !strings.Contains(out, `"name": "<redacted>"`) || !json.Valid([]byte(out)) {
		t.Errorf("a host named as the password:\n%s", out)
	}
}

func unmarshal(format, s string, v any) error {
	if format == "json" {
		return json.Unmarshal([]byte(s), v)
	}
	return yaml.Unmarshal([]byte(s), v)
}
