package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud/scale"
	"github.com/vtpmctl/vtpmctl/internal/output"
)

// TestModePlanCommand: on the strict synthetic 2026.1 cloud every guest is
// in mode user and no host-mode flavor exists: the table names the create
// line, the JSON keeps the plan's fields, and the exit is 1 (not reached).
func TestModePlanCommand(t *testing.T) {
	_, sess := scale.Session(t, scale.Config{Guests: 2, Projects: 1, Hypervisors: 1, Microversion: "2.103"})
	run := func(format string) (string, error) {
		var out, errs bytes.Buffer
		o := &modePlanOptions{IO: &IOStreams{Out: &out, Err: &errs}, Global: &globalOptions{Output: output.Options{Format: format}, session: sess},
			AllProjects: true, To: "host"}
		err := runModePlan(context.Background(), o)
		return out.String(), err
	}
	table, err := run("table")
	var rep *reportedError
	if !errors.As(err, &rep) || rep.code != exitFailed || !strings.Contains(rep.msg, "2 of 2 guest(s) cannot reach mode host") {
		t.Fatalf("err %v", err)
	}
	for _, want := range []string{"no-flavor", "vtpmctl flavor create ", "--secret-security host", "user→host: hosts reporting COMPUTE_SECURITY_TPM_SECRET_SECURITY_HOST"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	js, _ := run("json")
	var doc struct {
		To      string `json:"to"`
		Servers []struct {
			Verdict       string   `json:"verdict"`
			ResizeAllowed bool     `json:"resize_allowed"`
			Flavors       []string `json:"target_flavors"`
			Needs         []string `json:"needs"`
		} `json:"servers"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil || doc.To != "host" || len(doc.Servers) != 2 ||
		doc.Servers[0].Verdict != "no-flavor" || !doc.Servers[0].ResizeAllowed || doc.Servers[0].Flavors == nil || len(doc.Servers[0].Needs) == 0 {
		t.Errorf("json %v: %s", err, js)
	}
}
