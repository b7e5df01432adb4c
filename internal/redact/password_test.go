package redact

import (
	"bytes"
	"encoding/json"
	"html"
	"io"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/vtpmctl/vtpmctl/internal/quote"
)

// isolated gives a test a registry of its own: the words it registers
// as passwords must not reach the package's other tests.
func isolated(t *testing.T) {
	mu.Lock()
	a, v, c := added, values, snapshot()
	added, values = map[string]kind{}, map[string]kind{}
	mu.Unlock()
	curMu.Lock()
	cur = &index{}
	curMu.Unlock()
	t.Cleanup(func() {
		mu.Lock()
		added, values = a, v
		mu.Unlock()
		curMu.Lock()
		cur = c
		curMu.Unlock()
	})
}

// audit is a rendered result in which the common passwords appear in
// keys, a schema, literals, numbers and prose, never as a whole string.
type audit struct {
	Schema   string            `json:"schema" yaml:"schema"`
	SecretID string            `json:"secret_id" yaml:"secret_id"`
	Admin    bool              `json:"admin" yaml:"admin"`
	Secret   bool              `json:"secret" yaml:"secret"`
	Total    int               `json:"total" yaml:"total"`
	Ratio    float64           `json:"ratio" yaml:"ratio"`
	Hosts    []auditHost       `json:"hosts" yaml:"hosts"`
	Reason   string            `json:"reason" yaml:"reason"`
	Echo     string            `json:"echo" yaml:"echo"`
	Tags     map[string]string `json:"tags" yaml:"tags"`
	Nothing  *string           `json:"nothing" yaml:"nothing"`
	Mixed    []any             `json:"mixed" yaml:"mixed"`
	Quip     string            `json:"quip" yaml:"quip"`
	Say      string            `json:"say" yaml:"say"`
	Then     string            `json:"then" yaml:"then"`
}

type auditHost struct {
	Name    string `json:"name" yaml:"name"`
	Enabled bool   `json:"enabled" yaml:"enabled"`
	Port    int    `json:"port" yaml:"port"`
}

func auditDoc() audit {
	return audit{
		Schema: "vtpmctl.secrets-audit/1", SecretID: "secret-1234-admin", Total: 1234, Ratio: 0.1234,
		Hosts:  []auditHost{{"admin-01", false, 1234}, {"false-positive", true, 12345}},
		Reason: `the secret is owned by the guest's user: admin said false at 1234 ("secrets", 'admins')`,
		Echo:   `HTTP 400: {"secret_id": "x", "admin": false, "count": 1234, "note": "s\"q"}`,
		Tags:   map[string]string{"secret": "kept", "admin": "kept", "false": "kept", "1234": "kept"},
		Mixed:  []any{"x", 1234, "y", false, nil},
		Quip:   `'quoted' it's "sqrt"`,
		Say:    `say "hi`, Then: `ho" now`,
	}
}

// TestPasswordKeepsDocuments: with a password that is a common word, a
// literal or a number, a JSON or YAML document that does not hold it as
// a whole string passes through a Writer unchanged: it parses, its keys
// are intact, and it equals the unscrubbed one. Odd passwords must not
// break it either: each of the last ones would, were it replaced where it
// stands between two quotes (after a closing one, across a string's end,
// on an escape's backslash, across a YAML single-quoted scalar's end).
func TestPasswordKeepsDocuments(t *testing.T) {
	want := auditDoc()
	js, _ := json.MarshalIndent(want, "", "  ")
	compact, _ := json.Marshal(want)
	ys, _ := yaml.Marshal(want)
	for _, pw := range []string{"secret", "admin", "false", "1234", "true", "null",
		`", "`, `": "`, `\"x\"`, `q"}`, `kept"`, `a\b\`, `}, {`, `': x`, "\n  ", "s guest's",
		`,1234,`, `kept","false":"kept`, `sqrt\`, `quoted'`, "hi\nthen: ho"} {
		t.Run(pw, func(t *testing.T) {
			isolated(t)
			RegisterPassword(pw)
			for _, doc := range []struct {
				name string
				in   []byte
				load func([]byte, any) error
			}{{"json", js, json.Unmarshal}, {"compact json", compact, json.Unmarshal}, {"yaml", ys, yaml.Unmarshal}} {
				for _, out := range []string{scrubbed(doc.in, len(doc.in)), scrubbed(doc.in, 1)} {
					var got, base audit
					if err := doc.load([]byte(out), &got); err != nil {
						t.Fatalf("%s: no longer parses (%v):\n%s", doc.name, err, out)
					}
					doc.load(doc.in, &base)
					if !reflect.DeepEqual(got, base) || out != string(doc.in) {
						t.Errorf("%s: changed:\n%s", doc.name, out)
					}
				}
			}
		})
	}
}

// scrubbed passes b through a Writer in writes of n bytes.
func scrubbed(b []byte, n int) string {
	var out bytes.Buffer
	w := NewWriter(&out)
	for len(b) > 0 {
		k := min(n, len(b))
		w.Write(b[:k])
		b = b[k:]
	}
	w.Close()
	return out.String()
}

// TestPasswordRemovedWhereItStands: where a password can appear (a whole
// string value, an auth body a server echoes, quoted by a server's
// message, URL user-info, a word of error text) it is removed, in every
// format the Writer sees; documents stay valid.
func TestPasswordRemovedWhereItStands(t *testing.T) {
	isolated(t)
	for _, pw := range []string{"secret", "admin", "false", "1234"} {
		RegisterPassword(pw)
	}
	for _, tc := range []struct {
		name, in, want string
		text           bool // error text (Scrub), not a document (Writer)
	}{
		{"JSON string value", `{"name": "admin", "admin": true, "n": "1234", "ok": false}`, `{"name": "<redacted>", "admin": true, "n": "<redacted>", "ok": false}`, false},
		{"JSON list", `["secret", "secret_id", "false"]`, `["<redacted>", "secret_id", "<redacted>"]`, false},
		{"echoed auth body in a string", `{"reason": "HTTP 400: {\"password\": \"false\", \"x\": false}"}`, `{"reason": "HTTP 400: {\"password\": \"<redacted>\", \"x\": false}"}`, false},
		{"echo twice escaped", `{"r": "{\"e\": \"{\\\"password\\\": \\\"secret\\\"}\"}"}`, `{"r": "{\"e\": \"{\\\"password\\\": \\\"<redacted>\\\"}\"}"}`, false},
		{"server quotes it", `{"r": "Invalid input for field 'password': 'secret' is too short"}`, `{"r": "Invalid input for field 'password': '<redacted>' is too short"}`, false},
		{"YAML", "name: \"false\"\nreason: 'HTTP 400: ''secret'' rejected'\nadmin: false\n\"false\": 1234\n", "name: \"<redacted>\"\nreason: 'HTTP 400: ''<redacted>'' rejected'\nadmin: false\n\"false\": 1234\n", false},
		{"CSV", "project,reason\np1,\"{\"\"password\"\": \"\"secret\"\"}\"\n", "project,reason\np1,\"{\"\"password\"\": \"\"<redacted>\"\"}\"\n", false},
		{"HTML", `<td>{&#34;password&#34;: &#34;admin&#34;}</td><td>admin</td>`, `<td>{&#34;password&#34;: &#34;<redacted>&#34;}</td><td>admin</td>`, false},
		{"URL user-info", "auth_url http://admin:secret@keystone:5000/v3 refused\n", "auth_url http://<redacted>@keystone:5000/v3 refused\n", false},
		{"URL user-info in JSON", `{"url":"http://u:pw@k","to":"http://k","mail":"a@b"}`, `{"url":"http://<redacted>@k","to":"http://k","mail":"a@b"}`, false},
		{"error text word", `authenticating: HTTP 401: bad password secret. (user admin)`, `authenticating: HTTP 401: bad password <redacted>. (user <redacted>)`, true},
		{"error text keeps names", `no secret_id in vtpmctl.secrets-audit/1 for admin2`, `no secret_id in vtpmctl.secrets-audit/1 for admin2`, true},
	} {
		got := scrubbed([]byte(tc.in), 3)
		if tc.text {
			got = Scrub(tc.in)
		}
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
		if strings.HasPrefix(tc.in, "{") && !json.Valid([]byte(got)) {
			t.Errorf("%s: not JSON any more: %s", tc.name, got)
		}
	}
}

// TestTokenStillSubstring: a token is removed wherever it appears, also
// inside a word or a key; registered as both, it stays a token.
func TestTokenStillSubstring(t *testing.T) {
	isolated(t)
	const tok = "gAAAAABtok-Zq81x"
	RegisterPassword(tok)
	Register(tok)
	RegisterPassword(tok)
	in := `{"k_` + tok + `": "x` + tok + `y"}`
	if got, want := scrubbed([]byte(in), 5), `{"k_<redacted>": "x<redacted>y"}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestEscapedMark: a Writer for HTML or markdown writes a mark that shows
// there, for a registered value and for URL user-info alike.
func TestEscapedMark(t *testing.T) {
	isolated(t)
	if html.EscapeString(Mark) != EscapedMark || quote.Markdown(Mark) != EscapedMark {
		t.Fatalf("EscapedMark %q is not Mark as HTML and markdown escape it", EscapedMark)
	}
	Register("gAAAAABmark-tok_9")
	var out bytes.Buffer
	w := NewMarkWriter(&out, EscapedMark)
	io.WriteString(w, "<td>token gAAAAABmark-tok_9 at http://u:p@h/x</td>\n- gAAAAABmark-tok\\_9\n")
	w.Close()
	if want := "<td>token &lt;redacted&gt; at http://&lt;redacted&gt;@h/x</td>\n- &lt;redacted&gt;\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

// TestPasswordWriterSplit: what a password's match reads before and
// after it (the quotes, a ':') is kept across the Writer's blocks: a
// block's end falls at every offset of a document.
func TestPasswordWriterSplit(t *testing.T) {
	isolated(t)
	RegisterPassword("secret")
	in := `{"k": "secret", "secret": false, "e": "x \"secret\" secrets", "l": ["secret"]}` + "\n"
	want := `{"k": "<redacted>", "secret": false, "e": "x \"<redacted>\" secrets", "l": ["<redacted>"]}` + "\n"
	filler := strings.Repeat("x", block-1) + "\n"
	for cut := 0; cut <= len(in); cut++ {
		var out bytes.Buffer
		w := NewWriter(&out)
		io.WriteString(w, filler+in[:cut]) // a block: scrubbed but for what is held back
		io.WriteString(w, in[cut:])
		w.Close()
		if got := strings.TrimPrefix(out.String(), filler); got != want {
			t.Fatalf("cut at %d: %s", cut, got)
		}
	}
}
