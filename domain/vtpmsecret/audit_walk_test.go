package vtpmsecret

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// richFacts: guests that pass, fail, have duplicates or no secret, one
// promoted by its secret, one in deployment mode with its service user
// unknown (a hint), secrets with consumers, and orphans.
func richFacts() Facts {
	f := baseFacts()
	f.Release, f.API, f.ServiceProject = nova.Gazpacho, API{1, 1}, "svc"
	f.Audited["svc"] = true
	f.OtherServers = map[string]nova.OtherServer{"other": {Name: "plain"}, "undec": {Name: "vm-undec", ImageUnknown: true}}
	f.Undecided = []nova.UndecidedServer{{Guest: Guest{ServerID: "undec", Name: "vm-undec", ProjectID: "p1", UserID: "alice", Mode: nova.SecretUser}, Reason: nova.UndecidedImageGone}}
	f.Secrets.mut(0).Consumers = []Consumer{NovaConsumer("srv1")}
	for i := 2; i <= 40; i++ {
		g := Guest{ServerID: fmt.Sprintf("srv%d", i), Name: fmt.Sprintf("win%d", i), ProjectID: "p1", UserID: "alice", Mode: nova.SecretUser, Version: "2.0", Model: "tpm-crb", Status: "ACTIVE"}
		if i%7 == 0 {
			g.Mode = nova.SecretDeployment
		}
		f.Guests.Add(g)
		if i%5 == 0 {
			continue // no secret: fails
		}
		s := f.Secrets.At(0)
		s.ID, s.InstanceID, s.Consumers = fmt.Sprintf("s%d", i), g.ServerID, nil
		if g.Mode == nova.SecretDeployment {
			s.ProjectID, s.CreatorID = "svc", fmt.Sprintf("creator%d", i%2)
		}
		switch {
		case i%3 == 0:
			s.Consumers = []Consumer{NovaConsumer("other")}
		case i%4 == 0:
			s.Consumers = []Consumer{} // read: none
		}
		f.Secrets.Add(s)
		if i%11 == 0 {
			s.ID = s.ID + "-dup"
			f.Secrets.Add(s)
		}
	}
	for _, id := range []string{"gone1", "undec", "other"} {
		s := f.Secrets.At(0)
		s.ID, s.InstanceID, s.Consumers = "orphan-"+id, id, nil
		s.Created = s.Created.Add(time.Duration(len(id)) * time.Hour)
		f.Secrets.Add(s)
	}
	return f
}

// A streamed audit writes what a held one writes, byte for byte: JSON,
// YAML, a status view, the caller's names, -c, the summary view; its
// table (walked three times: the footer, widths, lines), value and CSV
// rows too.
func TestStreamedAuditWritesTheHeldOnesBytes(t *testing.T) {
	names := func(h Hint) string { return "--flag-" + string(h) }
	views := map[string]func(r Result) any{
		"whole":   func(r Result) any { return &r },
		"failed":  func(r Result) any { v := r.Only(result.Filter{result.Fail}); return &v },
		"summary": func(r Result) any { return r.SummaryView() },
	}
	for _, named := range []bool{false, true} {
		for view, pick := range views {
			for _, opts := range []output.Options{{Format: "json"}, {Format: "yaml"}, {Format: "json", Columns: []string{"server_id", "findings"}},
				{Format: "table", MaxWidth: -1}, {Format: "table", MaxWidth: 80}, {Format: "table", MaxWidth: -1, Columns: []string{"server_id", "owner_name", "findings"}},
				{Format: "value", Columns: []string{"server_id", "result", "findings"}}, {Format: "csv"}} {
				if view == "summary" && (opts.Format == "value" || opts.Format == "csv" || len(opts.Columns) > 0 && opts.Format == "table") {
					continue // the summary's rows have other columns
				}
				name := fmt.Sprintf("%s/%s/%d/%v/names=%v", view, opts.Format, opts.MaxWidth, opts.Columns, named)
				t.Run(name, func(t *testing.T) {
					held, streamed := Audit(richFacts(), now), AuditStreamed(richFacts(), now)
					if !streamed.Streamed() || held.Streamed() || streamed.Guests != nil {
						t.Fatal("AuditStreamed must not hold its guests, Audit must")
					}
					if named {
						held.Name(names)
						streamed.Name(names)
					}
					var want, got bytes.Buffer
					if err := output.Write(&want, opts, pick(held)); err != nil {
						t.Fatal(err)
					}
					if err := output.Write(&got, opts, pick(streamed)); err != nil {
						t.Fatal(err)
					}
					if view == "whole" && opts.Format != "table" {
						var wantProm, gotProm strings.Builder
						if err := writeGauges(&wantProm, &held); err != nil || writeGauges(&gotProm, &streamed) != nil || wantProm.String() != gotProm.String() {
							t.Fatalf("gauges differ (%v):\n%s\n---\n%s", err, wantProm.String(), gotProm.String())
						}
					}
					if want.Len() < 100 || !bytes.Equal(want.Bytes(), got.Bytes()) {
						t.Fatalf("streamed differs from held:\n--- held\n%s\n--- streamed\n%s", want.String(), got.String())
					}
				})
			}
		}
	}
}

// The fixture covers what it says: failures, duplicates, consumers of
// each kind, a promoted guest and orphans (else the comparison above
// compares little).
func TestRichFactsCoverTheAudit(t *testing.T) {
	r := Audit(richFacts(), now)
	c := r.Summary.Consumers
	if r.Summary.Failed < 5 || r.Summary.OK < 5 || r.Summary.Orphans < 1 || len(r.Orphans) < 3 || c == nil || c.Protected == 0 || c.Mismatched == 0 || c.Unprotected == 0 || r.ServiceUser == nil {
		t.Fatalf("summary %+v consumers %+v orphans %d service user %v", r.Summary, c, len(r.Orphans), r.ServiceUser)
	}
	promoted := false
	r2 := AuditStreamed(richFacts(), now)
	for g := range r2.EachGuest {
		promoted = promoted || g.EvidenceReason != ""
	}
	if !promoted {
		t.Fatal("no guest promoted by its secret")
	}
}
