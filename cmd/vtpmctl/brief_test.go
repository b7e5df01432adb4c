package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud/scale"
	"github.com/vtpmctl/vtpmctl/internal/output"
)

// TestFleetScaleDefaults: issue 41's cloud (2,000 vTPM guests on 100
// Zed hosts). upgrade check --to 2026.1 printed 8,240 lines at 80
// columns, its verdict last; hosts audit --drain 565 for 20 guests, the
// same 690-character reason on every row, no guest named. Now each fits
// one screen, verdict first; --long lists every row; JSON is one shape
// whatever the view.
func TestFleetScaleDefaults(t *testing.T) {
	_, sess := scale.Session(t, scale.Config{Guests: 2000, Projects: 20, Hypervisors: 100, Images: 20, Microversion: "2.93"})
	global := func(format string) *globalOptions {
		return &globalOptions{Output: output.Options{Format: format, MaxWidth: 80}, session: sess}
	}
	upgrade := func(format string, long, summary bool) (string, error) {
		var out, errs bytes.Buffer
		o := &upgradeOptions{IO: &IOStreams{Out: &out, Err: &errs}, Global: global(format), To: nova.Gazpacho, Long: long, View: viewOptions{Summary: summary}}
		err := runUpgradeCheck(context.Background(), o)
		return out.String(), err
	}
	drain := func(format string, long bool) (string, error) {
		var out, errs bytes.Buffer
		o := &hostsOptions{IO: &IOStreams{Out: &out, Err: &errs}, Global: global(format), Drain: "cmp-00001", DrainSet: true, Long: long}
		err := runHostsAudit(context.Background(), o)
		return out.String(), err
	}
	lines := func(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }

	table, err := upgrade("table", false, false)
	var rep *reportedError
	if !errors.As(err, &rep) || rep.code != exitFailed {
		t.Fatalf("upgrade check: %v", err)
	}
	if l := lines(table); len(l) > 45 || !strings.Contains(strings.Join(l[:5], " "), "fail: 2000 of 2000 vTPM guest(s) stranded") {
		t.Errorf("upgrade check: %d lines at 80 columns, the verdict in the first five?\n%s", len(l), table)
	}
	long, _ := upgrade("table", true, false)
	if l := lines(long); len(l) < 2000 {
		t.Errorf("upgrade check --long: %d lines, want every stranded guest", len(l))
	}
	t.Logf("upgrade check --to 2026.1, 2,000 guests, 80 columns: %d lines (--long %d)", len(lines(table)), len(lines(long)))

	// one shape: --summary's document has the whole one's keys
	keys := func(s string) []string {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatalf("%v: %s", err, s)
		}
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return ks
	}
	whole, _ := upgrade("json", false, false)
	sum, _ := upgrade("json", false, true)
	if w, s := keys(whole), keys(sum); !slices.Equal(w, s) || !slices.Contains(w, "summary") {
		t.Errorf("upgrade check -f json keys %v, --summary's %v: want one shape, with summary", w, s)
	}

	table, err = drain("table", false)
	if err != nil {
		t.Fatalf("drain: %v", err)
	}
	if l := lines(table); len(l) > 30 || !strings.Contains(strings.Join(l[:5], " "), "can be drained: 20 vTPM guest(s)") ||
		strings.Count(table, "the guest is stopped") != 1 || !strings.Contains(table, "vm-000001") {
		t.Errorf("hosts audit --drain: %d lines, verdict first, the reason once, guests named?\n%s", len(l), table)
	}
	long, _ = drain("table", true)
	if l := lines(long); len(l) < 20 || !strings.Contains(long, "| vm-000101 ") {
		t.Errorf("hosts audit --drain --long: a named row per guest:\n%s", long)
	}
	t.Logf("hosts audit --drain (20 guests), 80 columns: %d lines (--long %d)", len(lines(table)), len(lines(long)))
}
