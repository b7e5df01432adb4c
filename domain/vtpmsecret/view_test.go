package vtpmsecret

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/result"
)

func viewFixture() Result {
	g := func(id string, ss ...result.Status) GuestResult {
		var fs []Finding
		for _, s := range ss {
			fs = append(fs, Finding{Check: CheckID("SECRET-" + strings.ToUpper(string(s))), Status: s})
		}
		return GuestResult{Guest: Guest{ServerID: id}, Findings: fs}
	}
	return Result{Schema: ResultSchema, Summary: Summary{Guests: 4, Secrets: 4, OK: 2, Failed: 1},
		Guests:       []GuestResult{g("ok", result.Pass), g("bad", result.Pass, result.Warn, result.Fail), g("warned", result.Warn, result.Pass), g("skipped", result.Skip)},
		NotAuditable: map[string]NotAuditable{"p9": {Kind: ListRefused}}, Orphans: []Orphan{{Kind: OrphanGone}}, Warnings: []string{"a partial view"}}
}

func TestOnlyKeepsRowsOfTheirWorstStatus(t *testing.T) {
	r := viewFixture()
	for _, c := range []struct {
		keep result.Filter
		want string
	}{
		{nil, "ok bad warned skipped"},
		{result.Filter{result.Fail}, "bad"},
		{result.Filter{result.Warn}, "warned"}, // bad warns too, but fails
		{result.Filter{result.Fail, result.Warn}, "bad warned"},
		{result.Filter{result.Skip, result.Pass}, "ok skipped"},
	} {
		got := r.Only(c.keep)
		var ids []string
		for _, g := range got.Guests {
			ids = append(ids, g.ServerID)
		}
		if strings.Join(ids, " ") != c.want {
			t.Errorf("Only(%v) = %v, want %s", c.keep, ids, c.want)
		}
		if got.Summary != r.Summary || len(got.Warnings) != 1 || len(got.NotAuditable) != 1 {
			t.Errorf("Only(%v) changed the whole run's summary or warnings: %+v", c.keep, got.Summary)
		}
	}
	if len(r.Guests) != 4 {
		t.Error("Only changed its receiver")
	}
}

func TestSummaryView(t *testing.T) {
	r := viewFixture()
	v := r.SummaryView()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	json.Unmarshal(b, &doc)
	if doc["schema"] != ResultSchema || doc["summary"].(map[string]any)["guests"] != float64(4) {
		t.Errorf("the summary view's document lost its schema or summary: %s", b)
	}
	if g, ok := doc["guests"].([]any); !ok || len(g) != 0 || doc["orphans"] != nil {
		t.Errorf("lists not empty: %s", b)
	}
	tb := v.Table()
	if len(tb.Rows) > 15 || tb.Rows[0].Get("summary") != "guests" || tb.Rows[0].Get("value") != 4 {
		t.Errorf("table: %d rows, first %v", len(tb.Rows), tb.Rows[0])
	}
	if len(tb.Footer) != 1 || tb.Footer[0] != "warning: a partial view" {
		t.Errorf("footer %q", tb.Footer)
	}
	if len(r.Guests) != 4 || r.Orphans == nil {
		t.Error("SummaryView changed its receiver")
	}
}
