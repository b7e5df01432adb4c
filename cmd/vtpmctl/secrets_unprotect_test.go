package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// runWithUnprotect is runCLI with secrets unprotect registered, whether
// or not secrets.go lists it yet.
func runWithUnprotect(t *testing.T, in string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = runUnprotectOn(&IOStreams{In: strings.NewReader(in), Out: &out, Err: &errb}, args...)
	return out.String(), errb.String(), code
}

// runUnprotectOn runs the CLI with secrets unprotect on streams.
func runUnprotectOn(streams *IOStreams, args ...string) int {
	g := &globalOptions{}
	root := newRootCommand(g, streams)
	for _, c := range root.Commands {
		if c.Name == "secrets" && c.Command("unprotect") == nil {
			c.Commands = append(c.Commands, newSecretsUnprotectCommand(g, streams))
		}
	}
	err := root.Run(context.Background(), append([]string{"vtpmctl"}, args...))
	return exitCode(err, streams.Err) // writes the error line first
}

// deletes records each consumer DELETE: path, microversion, body.
func deletes(c *fakecloud.Cloud) *[]string {
	var sent []string
	c.Handle("DELETE /key-manager/v1/secrets/*", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		sent = append(sent, r.URL.Path+" "+r.Header.Get("OpenStack-API-Version")+" "+string(b))
		w.WriteHeader(http.StatusNoContent)
	})
	return &sent
}

// TestUnprotectCommand: the orphan's secret carries Nova's consumer for
// its (gone) server, the guest's secret none. One --server: one DELETE
// of exactly that consumer, at 1.1; a dry run sends none; the guest's
// secret has nothing to remove (a rerun writes nothing).
func TestUnprotectCommand(t *testing.T) {
	c := consumersCloud(t)
	sent := deletes(c)
	out, errs, code := runWithUnprotect(t, "", "--os-cloud", "fake", "secrets", "unprotect", "--server", goneID, "--dry-run", "-f", "json")
	if code != 0 || len(*sent) != 0 || !strings.Contains(out, `"would_remove": 1`) || !strings.Contains(out, `"schema": "vtpmctl.secrets-unprotect/1"`) {
		t.Fatalf("dry run: exit %d, %d writes\n%s\n%s", code, len(*sent), out, errs)
	}
	out, errs, code = runWithUnprotect(t, "", "--os-cloud", "fake", "secrets", "unprotect", "--server", goneID)
	want := "/key-manager/v1/secrets/bbbbbbbb-1111-2222-3333-444444444444/consumers key-manager 1.1 " +
		`{"service":"nova","resource_type":"instance","resource_id":"` + goneID + `"}`
	if code != 0 || len(*sent) != 1 || (*sent)[0] != want || !strings.Contains(out, "removed 1") {
		t.Fatalf("exit %d, writes %q, want %q\n%s\n%s", code, *sent, want, out, errs)
	}
	out, errs, code = runWithUnprotect(t, "", "--os-cloud", "fake", "secrets", "unprotect", "--server", guestID)
	if code != 0 || len(*sent) != 1 || !strings.Contains(out, "not protected 1") {
		t.Fatalf("nothing to remove: exit %d, writes %q\n%s\n%s", code, *sent, out, errs)
	}
}

// TestUnprotectBulkGate: without one --server it is a bulk write. No
// terminal: refused before any cloud is asked (exit 2); on a terminal the
// secrets are shown and a "no" writes nothing (exit 1), a "y" writes.
func TestUnprotectBulkGate(t *testing.T) {
	c := consumersCloud(t)
	sent := deletes(c)
	_, errs, code := runWithUnprotect(t, "", "--os-cloud", "fake", "secrets", "unprotect")
	if code != 2 || errs != "vtpmctl: secrets unprotect: would remove Nova's consumer from the secrets of every vTPM guest in the token's project; pass --yes to write, or --dry-run to see the changes\n" || len(c.Requests) != 0 {
		t.Fatalf("no terminal: exit %d, %d requests\n%q", code, len(c.Requests), errs)
	}
	// a real terminal (a pty) on stdin and stderr, no stand-in
	run := func(s *IOStreams) int {
		s.Out = io.Discard
		return runUnprotectOn(s, "--os-cloud", "fake", "secrets", "unprotect")
	}
	code, errs = onTerminal(t, "n", run)
	if code != 1 || len(*sent) != 0 || !strings.Contains(errs, goneID) || !strings.Contains(errs, "remove Nova's consumer from these 1 secret(s)? [y/N]") {
		t.Fatalf("declined: exit %d, writes %q\n%s", code, *sent, errs)
	}
	code, errs = onTerminal(t, "y", run)
	if code != 0 || len(*sent) != 1 {
		t.Fatalf("confirmed: exit %d, writes %q\n%s", code, *sent, errs)
	}
}

// TestProtectSaysUnprotect: protect's output names the command a
// protected guest's delete needs first, in the table and in the JSON.
func TestProtectSaysUnprotect(t *testing.T) {
	consumersCloud(t)
	out, errs, code := runCLI(t, "--os-cloud", "fake", "secrets", "protect", "--dry-run")
	if code != 0 || !strings.Contains(out, "before deleting a protected guest: vtpmctl secrets unprotect --server <server id>") {
		t.Fatalf("table: exit %d\n%s\n%s", code, out, errs)
	}
	out, errs, code = runCLI(t, "--os-cloud", "fake", "secrets", "protect", "--dry-run", "-f", "json")
	if code != 0 || !strings.Contains(out, `"before_server_delete": "vtpmctl secrets unprotect --server \u003cserver id\u003e"`) {
		t.Fatalf("json: exit %d\n%s\n%s", code, out, errs)
	}
}
