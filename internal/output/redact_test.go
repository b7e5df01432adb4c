package output

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

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
			out := b.String()
			if strings.Contains(out, "result_tok") || !strings.Contains(out, "<redacted>") {
				t.Errorf("%T -f %s:\n%s", v, f, out)
			}
		}
	}
}
