package barbican

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// want is one request a strict server expects, exactly: method, path
// with query, the microversion header and the JSON body ("" for none),
// and what it answers.
type want struct {
	method, uri, version, body string
	status                     int
	header                     string // OpenStack-API-Version answered
	reply                      string
}

// strictServer is a strict fakecloud answering the wanted requests, each
// once: anything else, a wanted request never made, or the requests in
// another order, fails the test.
func strictServer(t *testing.T, wants ...want) *gophercloud.ServiceClient {
	t.Helper()
	c := fakecloud.New(t)
	var decls []string
	answers := map[string][]http.HandlerFunc{}
	for _, x := range wants {
		mv := x.version
		if mv == "" {
			mv = "none"
		}
		decl := x.method + " " + x.uri + " [" + mv + "] " + x.body
		if answers[decl] == nil {
			decls = append(decls, decl)
		}
		answers[decl] = append(answers[decl], func(w http.ResponseWriter, r *http.Request) {
			if x.header != "" {
				w.Header().Set(versionHeader, x.header)
			}
			fakecloud.JSON(x.status, x.reply)(w, r)
		})
	}
	for _, d := range decls {
		c.HandleSeq(d, answers[d]...)
	}
	t.Cleanup(func() {
		for i, r := range c.Sent() {
			if i >= len(wants) {
				break // one more than wanted: the fake failed the test on it
			}
			uri := r.Path
			if len(r.Query) > 0 {
				uri += "?" + r.Query.Encode()
			}
			if x := wants[i]; r.Method != x.method || uri != x.uri || r.Microversion != x.version || !sameJSON(r.Body, x.body) {
				t.Errorf("request %d: %s %s, want %s %s [%s] %s", i+1, r, r.Body, x.method, x.uri, x.version, x.body)
			}
		}
	})
	return c.ServiceClient("key-manager")
}

func sameJSON(a, b string) bool {
	if a == "" || b == "" {
		return a == b
	}
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

const sid = "6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d11"

// TestRemoveConsumer: DELETE …/consumers with the consumer as its body,
// at 1.1; a refusal is the caller's error.
func TestRemoveConsumer(t *testing.T) {
	c := vtpmsecret.NovaConsumer("srv1")
	body := `{"service":"nova","resource_type":"instance","resource_id":"srv1"}`
	km := strictServer(t,
		want{method: "DELETE", uri: "/key-manager/v1/secrets/" + sid + "/consumers", version: "key-manager 1.1", body: body, status: 200, reply: `{}`},
		want{method: "DELETE", uri: "/key-manager/v1/secrets/" + sid + "/consumers", version: "key-manager 1.1", body: body, status: 404, reply: `{"code":404}`})
	if err := RemoveConsumer(context.Background(), km, sid, c); err != nil {
		t.Fatal(err)
	}
	if err := RemoveConsumer(context.Background(), km, sid, c); !gophercloud.ResponseCodeIs(err, 404) {
		t.Errorf("got %v", err)
	}
}

// TestDeleteSecret: the microversion asked for, ?force=true only when
// forced; 1.2's refusal of a protected secret is an error.
func TestDeleteSecret(t *testing.T) {
	km := strictServer(t,
		want{method: "DELETE", uri: "/key-manager/v1/secrets/" + sid, version: "key-manager 1.2", status: 400, reply: `{"description":"Secret cannot be deleted as it has consumers."}`},
		want{method: "DELETE", uri: "/key-manager/v1/secrets/" + sid + "?force=true", version: "key-manager 1.2", status: 204})
	if err := DeleteSecret(context.Background(), km, sid, "1.2", false); !gophercloud.ResponseCodeIs(err, 400) || !strings.Contains(err.Error(), "has consumers") {
		t.Errorf("got %v", err)
	}
	if err := DeleteSecret(context.Background(), km, sid, "1.2", true); err != nil {
		t.Error(err)
	}
}

// TestDetectAPIDocument: the versions document when the header says
// nothing: a max_version, none (1.0), or no document at all (an error).
func TestDetectAPIDocument(t *testing.T) {
	for _, c := range []struct {
		name, reply string
		status      int
		api         vtpmsecret.API
		err         string
	}{
		{"max_version in the list", `{"versions":[{"id":"v1","status":"CURRENT","max_version":"1.2"}]}`, 300, vtpmsecret.API{Major: 1, Minor: 2}, ""},
		{"list without max_version", `{"versions":[{"id":"v1","status":"CURRENT"}]}`, 300, vtpmsecret.API{Major: 1, Minor: 0}, ""},
		{"max_version not a version", `{"versions":[{"id":"v1","max_version":"one"}]}`, 300, vtpmsecret.API{Major: 1, Minor: 0}, ""},
		{"server error", `{"error":"boom"}`, 503, vtpmsecret.API{}, "reading the key manager's versions"},
	} {
		t.Run(c.name, func(t *testing.T) {
			km := strictServer(t, want{method: "GET", uri: "/key-manager/", version: "key-manager latest", status: c.status, reply: c.reply})
			api, err := DetectAPI(context.Background(), km)
			if api != c.api || (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
				t.Errorf("got %v, %v", api, err)
			}
		})
	}
}
