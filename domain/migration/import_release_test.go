package migration

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// The plan names the release its import targeted, and reads back with
// it: a reviewer can tell a Zed plan from a 2026.1 one.
func TestImportRecordsRelease(t *testing.T) {
	for _, rel := range []nova.Release{nova.Zed, nova.Gazpacho} {
		var b bytes.Buffer
		if _, err := WriteImport(context.Background(), &b, nil, ImportOptions{Release: rel}, PlanSource{RVTools: "x.csv", NovaRelease: rel}); err != nil {
			t.Fatal(err)
		}
		if want := "  nova_release: " + rel.String() + "\n"; !strings.Contains(b.String(), want) && !strings.Contains(b.String(), `  nova_release: "`+rel.String()+"\"\n") {
			t.Errorf("%s: plan lacks %q:\n%s", rel, want, b.String())
		}
		p, err := ReadPlan(&b, "p.yaml")
		if err != nil || p.Source.NovaRelease != rel {
			t.Errorf("%s: read back %v, %v", rel, p.Source.NovaRelease, err)
		}
	}
}
