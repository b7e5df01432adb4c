package check

import (
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/output/outputtest"
)

// TestReportRecords: the document's Record is its JSON; the text formats'
// record has the versions bare, their source beside them, and the release
// itself: words in a table, raw in value and csv.
func TestReportRecords(t *testing.T) {
	f := nova.Flavor{Name: "f", ExtraSpecs: map[string]string{nova.FlavorTPMModel: "tpm-crb"}}
	i := nova.Image{Name: "i", Properties: map[string]string{"hw_tpm_version": "2.0", "hw_tpm_verion": "2.0"}}
	d := nova.Decide(f, i, nova.Dalmatian)
	r := NewReport(d, "detected", nova.NearMisses(f, i, d))
	outputtest.RecordIsJSON(t, r.Record(), r)
	text := r.TextRecord()
	for _, c := range []struct {
		name string
		want any
	}{
		{"nova_release_note", "detected"}, {"version", "2.0"}, {"version_source", "image"}, {"model", "tpm-crb"}, {"model_source", "flavor"},
	} {
		if text.Get(c.name) != c.want {
			t.Errorf("%s: %v, want %v", c.name, text.Get(c.name), c.want)
		}
	}
	for f, want := range map[string]string{"value": "2024.2\n", "csv": "nova_release\n2024.2\n", "table": "2024.2 Dalmatian (nova 30)"} {
		var b strings.Builder
		if err := output.Write(&b, output.Options{Format: f, Columns: []string{"nova_release"}}, r); err != nil || !strings.Contains(b.String(), want) || f != "table" && b.String() != want {
			t.Errorf("%s -c nova_release: %v %q, want %q", f, err, b.String(), want)
		}
	}
	if len(r.NearMisses) != 1 || r.NearMisses[0].Key != "hw_tpm_verion" {
		t.Errorf("near misses: %+v", r.NearMisses)
	}
}
