package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecretsAuditStreamedJUnit: with -f json the audit does not hold
// its guests (they are audited again as written); --junit walks them a
// second time and says what the table's run says.
func TestSecretsAuditStreamedJUnit(t *testing.T) {
	secretsCloud(t)
	dir := t.TempDir()
	junit := map[string]string{}
	for _, format := range []string{"json", "yaml", "table"} {
		path := filepath.Join(dir, format+".xml")
		out, errs, code := runCLI(t, "--os-cloud", "fake", "secrets", "audit", "-f", format, "--junit", path)
		if code == 2 || !strings.Contains(out, guestID) {
			t.Fatalf("-f %s: exit %d, no guest %s:\n%s\n%s", format, code, guestID, out, errs)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		junit[format] = string(b)
	}
	if !strings.Contains(junit["json"], guestID+" SECRET-EXISTS") {
		t.Fatalf("the streamed run's JUnit has no case for the guest:\n%s", junit["json"])
	}
	for _, format := range []string{"json", "yaml"} {
		if junit[format] != junit["table"] {
			t.Errorf("-f %s's JUnit differs from the table run's:\n%s\n---\n%s", format, junit[format], junit["table"])
		}
	}
}
