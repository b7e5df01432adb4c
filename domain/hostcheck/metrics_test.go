package hostcheck

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/vtpmctl/vtpmctl/internal/metrics"
)

// TestHostGauges: a host whose swtpm_setup is gone fails SWTPM-BINARIES
// while it still reports the 2.0 trait: the alert rule's case. The text
// parses back with the client library's parser, a hostile host name
// included.
func TestHostGauges(t *testing.T) {
	Now = func() time.Time { return time.Unix(1764547200, 0) }
	defer func() { Now = time.Now }()
	tr := newTree(t)
	tr.write("/etc/nova/nova.conf", strings.Replace(novaConfOK, "host = cmp1", "host = cmp1\"} evil{x=\"\\n", 1))
	os.Remove(filepath.Join(tr.root, "usr/bin/swtpm_setup"))
	r := tr.run()
	var buf bytes.Buffer
	if err := metrics.Write(&buf, r.Gauges()); err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(&buf)
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	found := map[string]bool{}
	for _, m := range fams["vtpmctl_host_check"].GetMetric() {
		l := map[string]string{}
		for _, x := range m.Label {
			l[x.GetName()] = x.GetValue()
		}
		if l["host"] != r.Host {
			t.Errorf("host label %q, want %q", l["host"], r.Host)
		}
		found[l["check"]+"="+l["status"]] = true
	}
	if !found["SWTPM-BINARIES=fail"] || !found["SWTPM-USER=pass"] {
		t.Errorf("checks %v", found)
	}
	if len(fams["vtpmctl_host_trait"].GetMetric()) == 0 || fams["vtpmctl_last_run_timestamp_seconds"].GetMetric()[0].GetGauge().GetValue() != 1764547200 {
		t.Errorf("traits or timestamp missing:\n%s", buf.String())
	}
	// Only what a host check finds: the fleet's series (the guests at risk,
	// which a host check cannot know and printed as an always-zero gauge)
	// are hosts audit's.
	for name := range fams {
		if name == "vtpmctl_host_vtpm_guests_at_risk" || strings.HasPrefix(name, "vtpmctl_fleet_") {
			t.Errorf("host check emits the fleet's %s", name)
		}
	}
	if fams["vtpmctl_host_info"].GetMetric()[0].Label[1].GetValue() != "packages" {
		t.Errorf("info %v", fams["vtpmctl_host_info"])
	}
}
