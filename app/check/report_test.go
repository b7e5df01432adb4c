package check

import (
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/output/outputtest"
)

// TestReportRecords: the document's Record is its JSON; the table's and
// the scripts' records name the same fields, in the same order, and
// differ only in the release: in words for people, as --nova-release
// takes it for scripts. Versions are bare in both, their source beside.
func TestReportRecords(t *testing.T) {
	f := nova.Flavor{Name: "f", ExtraSpecs: map[string]string{nova.FlavorTPMModel: "tpm-crb"}}
	i := nova.Image{Name: "i", Properties: map[string]string{"hw_tpm_version": "2.0", "hw_tpm_verion": "2.0"}}
	d := nova.Decide(f, i, nova.Dalmatian)
	r := NewReport(d, "detected", nova.NearMisses(f, i, d))
	outputtest.RecordIsJSON(t, r.Record(), r)
	text, script := r.TextRecord(), r.ScriptRecord()
	if len(text) != len(script) {
		t.Fatalf("%d text fields, %d script fields", len(text), len(script))
	}
	for k := range text {
		if text[k].Name != script[k].Name {
			t.Errorf("field %d: %s, %s", k, text[k].Name, script[k].Name)
		}
		if s, ok := text[k].Value.(string); ok && (s != script[k].Value) != (text[k].Name == "nova_release") {
			t.Errorf("%s: table %v, scripts %v", text[k].Name, text[k].Value, script[k].Value)
		}
	}
	for _, c := range []struct{ name, text, script string }{
		{"nova_release", "2024.2 Dalmatian (nova 30)", "2024.2"}, {"nova_release_note", "detected", "detected"},
		{"version", "2.0", "2.0"}, {"version_source", "image", "image"}, {"model", "tpm-crb", "tpm-crb"}, {"model_source", "flavor", "flavor"},
	} {
		if text.Get(c.name) != c.text || script.Get(c.name) != c.script {
			t.Errorf("%s: %v, %v; want %s, %s", c.name, text.Get(c.name), script.Get(c.name), c.text, c.script)
		}
	}
	if len(r.NearMisses) != 1 || r.NearMisses[0].Key != "hw_tpm_verion" {
		t.Errorf("near misses: %+v", r.NearMisses)
	}
}
