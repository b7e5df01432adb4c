package cloud

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestRedactJSON(t *testing.T) {
	in := `{"auth":{"identity":{"methods":["password"],"password":{"user":{"name":"u","password":"hunter2"}}},"application_credential":{"id":"x","secret":"s3"}},"token":{"id":"tok-value-123"},"tokens":["x"],"access_token":"at-value-9","payload":"p","extra_specs":{"hw:tpm_version":"2.0"}}`
	out := RedactJSON([]byte(in))
	for _, leak := range []string{"hunter2", "s3", "tok-value-123", "at-value-9", `"p"`} {
		if strings.Contains(out, leak) {
			t.Errorf("%s leaked: %s", leak, out)
		}
	}
	if !strings.Contains(out, `"hw:tpm_version":"2.0"`) {
		t.Errorf("ordinary data lost: %s", out)
	}
	if got := RedactJSON([]byte("password=hunter2")); strings.Contains(got, "hunter2") {
		t.Errorf("non-JSON body logged: %s", got)
	}
}

func TestDebugTransportRedactsHeaders(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Subject-Token", "gAAAAsecret-token")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"token":{"catalog":[]},"secret":"x-value"}`)
	}))
	defer srv.Close()
	var log bytes.Buffer
	c := http.Client{Transport: &debugTransport{next: http.DefaultTransport, w: &log}}
	req, _ := http.NewRequest("POST", srv.URL+"/v3/auth/tokens", strings.NewReader(`{"password":"hunter2"}`))
	req.Header.Set("X-Auth-Token", "gAAAAcaller-token")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), "x-value") {
		t.Fatalf("response body must reach the caller intact: %s", body)
	}
	got := log.String()
	for _, leak := range []string{"hunter2", "gAAAAsecret-token", "gAAAAcaller-token", "x-value"} {
		if strings.Contains(got, leak) {
			t.Errorf("%s leaked into debug log:\n%s", leak, got)
		}
	}
	if !strings.Contains(got, "REQ: POST ") || !strings.Contains(got, "RESP: 200 OK") {
		t.Errorf("log lacks request/response lines:\n%s", got)
	}
}

// TestRedactSubtrees: lists and objects under sensitive keys, any case,
// and the credential spellings a body may use.
func TestRedactSubtrees(t *testing.T) {
	in := `{"password":["l1"],"Payload":{"v":"l2"},"token":{"value":"l3"},"auth_token":"l4","X-Auth-Token":"l5","passwd":"l6",
"client_secret":"l7","application_credential_secret":"l8","credentials":[{"blob":"l9"}],"PASSWORD":"l10","nested":[{"Admin_Password":"l11"}],
"name":"kept-name"}`
	out := RedactJSON([]byte(in))
	for i := 1; i <= 11; i++ {
		if strings.Contains(out, fmt.Sprintf(`"l%d"`, i)) {
			t.Errorf("l%d leaked: %s", i, out)
		}
	}
	if !strings.Contains(out, "kept-name") {
		t.Errorf("ordinary data lost: %s", out)
	}
}
