package redact

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"strings"
	"testing"
)

func TestScrub(t *testing.T) {
	Register("hunter2-pass")
	Register("gAAAAABtoken-issued-first-0001")
	Register("gAAAAABtoken-issued-first-0001-longer")
	Register("ab") // too short to register
	for _, tc := range []struct{ in, want string }{
		{`HTTP 401: {"error":"bad password hunter2-pass"}`, `HTTP 401: {"error":"bad password <redacted>"}`},
		{"x gAAAAABtoken-issued-first-0001-longer y", "x <redacted> y"},
		{"gAAAAABtoken-issued-first-0001gAAAAABtoken-issued-first-0001", "<redacted><redacted>"},
		{`authenticating to http://admin:s3cr3t@127.0.0.1:5000/v3: refused`, `authenticating to http://<redacted>@127.0.0.1:5000/v3: refused`},
		{"about a tab", "about a tab"},
		{"hunter2-pas", "hunter2-pas"},
	} {
		if got := Scrub(tc.in); got != tc.want {
			t.Errorf("Scrub(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestWriterSplit: a value split at every possible point across two
// writes, and written a byte at a time, is still scrubbed.
func TestWriterSplit(t *testing.T) {
	tok := "gAAAAABsplit-token-Zz81-" + strings.Repeat("q", 40)
	Register(tok)
	in := "before http://u:pw@host/x " + tok + " middle " + tok + "\nafter"
	want := "before http://<redacted>@host/x <redacted> middle <redacted>\nafter"
	for cut := 0; cut <= len(in); cut++ {
		var out bytes.Buffer
		w := NewWriter(&out)
		io.WriteString(w, in[:cut])
		io.WriteString(w, in[cut:])
		w.Close()
		if out.String() != want {
			t.Fatalf("cut at %d: %q", cut, out.String())
		}
	}
	var out bytes.Buffer
	w := NewWriter(&out)
	for i := 0; i < len(in); i++ {
		w.Write([]byte{in[i]})
	}
	w.Flush()
	if out.String() != want {
		t.Fatalf("byte at a time: %q", out.String())
	}
}

// TestWriterBlocks: values across 64 KiB block edges in MBs of output.
func TestWriterBlocks(t *testing.T) {
	tok := "gAAAAABblock-token-7731"
	Register(tok)
	var in strings.Builder
	for in.Len() < 3<<20 {
		fmt.Fprintf(&in, "%s %d %s,", strings.Repeat("x", in.Len()%997), in.Len(), tok)
	}
	var out bytes.Buffer
	w := NewWriter(&out)
	s := in.String()
	for len(s) > 0 {
		n := min(len(s), 4093)
		io.WriteString(w, s[:n])
		s = s[n:]
	}
	w.Close()
	if want := strings.ReplaceAll(in.String(), tok, Mark); out.String() != want {
		t.Fatalf("streamed output differs from Scrub's (%d vs %d bytes)", out.Len(), len(want))
	}
}

// BenchmarkWriter: 1,000 registered tokens, MBs of output.
func BenchmarkWriter(b *testing.B) {
	for i := 0; i < 1000; i++ {
		Register(fmt.Sprintf("gAAAAABbench%08d-%s", i, strings.Repeat("k", 160)))
	}
	line := []byte(`  {"id": "6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d11", "name": "guest-00001", "status": "PASS", "reason": "secret owned by the guest's user"},` + "\n")
	b.SetBytes(int64(len(line)) * 10000)
	for i := 0; i < b.N; i++ {
		w := NewWriter(io.Discard)
		for j := 0; j < 10000; j++ {
			w.Write(line)
		}
		w.Close()
	}
}

// TestEncodedForms: a value is found as JSON, markdown, HTML and CSV
// write it, not only verbatim.
func TestEncodedForms(t *testing.T) {
	Register(`gAAAAB_enc<&>"x-Tok`)
	for _, in := range []string{
		`gAAAAB_enc\u003c\u0026\u003e\"x-Tok`, // json.Marshal
		`gAAAAB_enc<&>\"x-Tok`,                // JSON without HTML escaping, YAML double-quoted
		`gAAAAB\_enc&lt;&&gt;"x-Tok`,          // markdown
		`gAAAAB_enc&lt;&amp;&gt;&#34;x-Tok`,   // html/template, html.EscapeString
		`gAAAAB_enc<&>""x-Tok`,                // CSV
	} {
		if got := Scrub("a " + in + " b"); got != "a <redacted> b" {
			t.Errorf("%s: %q", in, got)
		}
	}
}

// TestHTMLTemplateForm: html/template also writes '+' as &#43; (the
// report's text), a spelling html.EscapeString does not have.
func TestHTMLTemplateForm(t *testing.T) {
	Register("gAAAAB+plus/Tok'9")
	var b bytes.Buffer
	template.Must(template.New("").Parse(`<td>{{.}}</td>`)).Execute(&b, "token gAAAAB+plus/Tok'9 refused")
	if got := Scrub(b.String()); got != "<td>token <redacted> refused</td>" {
		t.Errorf("%s: %q", b.String(), got)
	}
}
