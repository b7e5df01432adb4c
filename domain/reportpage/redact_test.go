package reportpage

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/redact"
)

// TestRenderRedactedVisibly: a token a server echoed into a finding is
// removed, and the mark shows in a browser: escaped, not a tag it would
// hide. Also when the page passes through the plain Writer fileout puts
// around it, which must find nothing left to mark.
func TestRenderRedactedVisibly(t *testing.T) {
	const tok = "gAAAAABreport+tok_9Qx"
	redact.Register(tok)
	sec := vtpmsecret.Result{Schema: vtpmsecret.ResultSchema, Summary: vtpmsecret.Summary{NotAuditable: 1},
		NotAuditable: map[string]vtpmsecret.NotAuditable{"p9": {Kind: vtpmsecret.ListFailed, Detail: `HTTP 403: {"error": "token ` + tok + ` may not list secrets at https://u:pw@kv/x"}`}}}
	for _, outer := range []bool{false, true} {
		var b bytes.Buffer
		var w io.Writer = &b
		rw := redact.NewWriter(&b)
		if outer {
			w = rw
		}
		if err := Render(w, Inputs{Secrets: &sec}, nil); err != nil {
			t.Fatal(err)
		}
		rw.Flush()
		page := b.String()
		if strings.Contains(page, "report+tok") || strings.Contains(page, "report&#43;tok") || strings.Contains(page, redact.Mark) ||
			!strings.Contains(page, "token &lt;redacted&gt; may not list secrets at https://&lt;redacted&gt;@kv/x") {
			t.Errorf("outer writer %v: the finding reads:\n%s", outer, finding(page))
		}
	}
}

// finding is the page's not-auditable row, for a failure message.
func finding(page string) string {
	if i := strings.Index(page, "not auditable:"); i >= 0 {
		return page[i:min(len(page), i+200)]
	}
	return page
}
