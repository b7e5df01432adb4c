package cloud

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
	"github.com/vtpmctl/vtpmctl/internal/redact"
)

// TestPasswordIsAnyWord: Connect registers the password as one, not as a
// token. With OS_PASSWORD=false the --debug log keeps every JSON false,
// a rendered document stays JSON, and the password is still removed where
// it stands: the auth body, a server's quoted echo in an error body (in
// the log and in the error line), a whole string value.
func TestPasswordIsAnyWord(t *testing.T) {
	const echo = `{"badRequest":{"message":"Invalid input for field 'password': 'false' is not allowed","code":400,"retry":false}}`
	srv := fakecloud.New(t)
	srv.Handle("POST /identity/v3/auth/tokens [none]", func(w http.ResponseWriter, r *http.Request) {
		srv.AddToken("gAAAAword-pass-token-Qw8", "p1")
		w.Header().Set("X-Subject-Token", "gAAAAword-pass-token-Qw8")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		fmt.Fprintf(w, `{"token":{"expires_at":"2099-01-01T00:00:00Z","project":{"id":"p1","name":"p"},"catalog":[{"type":"compute","endpoints":[{"interface":"public","region":"RegionOne","url":"%s/compute"}]}]}}`, srv.URL)
	})
	srv.Handle("GET /compute/thing [none]", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(400)
		io.WriteString(w, echo)
	})
	t.Setenv("OS_CLIENT_CONFIG_FILE", "/nonexistent")
	t.Setenv("OS_CLOUD", "")
	for k, v := range map[string]string{"OS_AUTH_URL": srv.URL + "/identity/v3", "OS_USERNAME": "u", "OS_PASSWORD": "false", "OS_PROJECT_ID": "p1", "OS_USER_DOMAIN_NAME": "Default"} {
		t.Setenv(k, v)
	}
	var debug bytes.Buffer
	s, err := Connect(context.Background(), Options{Timeout: 10 * time.Second, Debug: &debug})
	if err != nil {
		t.Fatal(err)
	}
	sc := &gophercloud.ServiceClient{ProviderClient: s.Provider, Endpoint: srv.URL + "/compute/"}
	_, err = sc.Get(context.Background(), sc.ServiceURL("thing"), nil, nil)
	if err == nil {
		t.Fatal("the 400 was not an error")
	}
	line, log := Scrub(Friendly(err).Error()), debug.String()
	for _, tc := range []struct {
		name, text string
		want, not  []string
	}{
		{"debug log", log, []string{`"retry":false`, `'<redacted>' is not allowed`}, []string{`'false'`, `"false"`, "<redacted>,"}},
		{"error line", line, []string{`'<redacted>' is not allowed`}, []string{`'false'`}},
	} {
		for _, w := range tc.want {
			if !strings.Contains(tc.text, w) {
				t.Errorf("%s lacks %s:\n%s", tc.name, w, tc.text)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(tc.text, n) {
				t.Errorf("%s has %s:\n%s", tc.name, n, tc.text)
			}
		}
	}
	doc := `{"schema": "vtpmctl.secrets-audit/1", "enabled": false, "false_count": 0, "name": "false"}` + "\n"
	var out bytes.Buffer
	w := redact.NewWriter(&out)
	io.WriteString(w, doc)
	w.Close()
	if want := strings.Replace(doc, `"name": "false"`, `"name": "<redacted>"`, 1); out.String() != want || !json.Valid(out.Bytes()) {
		t.Errorf("rendered document:\n got %s\nwant %s", out.String(), want)
	}
}
