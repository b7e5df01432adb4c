package vtpmsecret

import (
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/output"
)

// TestAuditUndecided: a server whose image properties at boot could not
// be read is a vTPM guest when a secret is named for it (audited, its
// evidence said, never a live server's orphan); the rest are counted by
// reason, and undecided volume-backed servers are warned about.
func TestAuditUndecided(t *testing.T) {
	undecided := func(id string, r nova.Undecided) nova.UndecidedServer {
		return nova.UndecidedServer{Guest: Guest{ServerID: id, Name: "vm-" + id, ProjectID: "p1", UserID: "alice", Mode: nova.SecretUser}, Reason: r}
	}
	for _, c := range []struct {
		name      string
		undecided []nova.UndecidedServer
		guests    int
		promoted  string // server audited from its secret
		left      map[nova.Undecided]int
		warning   string
	}{
		{"image deleted, secret present", []nova.UndecidedServer{undecided("srv2", nova.UndecidedImageGone)}, 2, "srv2", nil, ""},
		{"volume-backed without block storage, secret present", []nova.UndecidedServer{undecided("srv2", nova.UndecidedNoBlockStorage)}, 2, "srv2", nil, ""},
		{"no secret: counted, warned", []nova.UndecidedServer{undecided("srv3", nova.UndecidedNoBlockStorage), undecided("srv4", nova.UndecidedNoBlockStorage), undecided("srv5", nova.UndecidedImageGone)},
			1, "", map[nova.Undecided]int{nova.UndecidedNoBlockStorage: 2, nova.UndecidedImageGone: 1}, "2 volume-backed server(s) were not decided"},
		{"image gone only: no warning", []nova.UndecidedServer{undecided("srv5", nova.UndecidedImageGone)}, 1, "", map[nova.Undecided]int{nova.UndecidedImageGone: 1}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := baseFacts()
			f.Undecided = c.undecided
			f.OtherServers = map[string]nova.OtherServer{}
			for _, u := range c.undecided {
				f.OtherServers[u.Guest.ServerID] = nova.OtherServer{Name: u.Guest.Name, ImageUnknown: u.Reason == nova.UndecidedImageGone}
			}
			if c.promoted != "" {
				s := f.Secrets.At(0)
				s.ID, s.InstanceID = "s2", c.promoted
				f.Secrets.Add(s)
			}
			r := Audit(f, now)
			if r.Summary.Guests != c.guests || len(r.Guests) != c.guests || len(r.Orphans) != 0 {
				t.Fatalf("summary %+v, orphans %+v", r.Summary, r.Orphans)
			}
			if c.promoted != "" {
				g := r.Guests[1]
				if g.ServerID != c.promoted || g.Evidence != nova.EvidenceSecret || g.Undecided != c.undecided[0].Reason || g.SecretID != "s2" || g.Failed() || r.Summary.OK != 2 {
					t.Errorf("promoted guest %+v, summary %+v", g, r.Summary)
				}
			}
			if len(r.Undecided) != len(c.left) {
				t.Errorf("undecided %v, want %v", r.Undecided, c.left)
			}
			for k, n := range c.left {
				if r.Undecided[k] != n {
					t.Errorf("undecided %v, want %v", r.Undecided, c.left)
				}
			}
			text := tableText(t, &r)
			if c.warning != "" && (len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], c.warning) || !strings.Contains(text, "warning: "+c.warning)) {
				t.Errorf("warnings %q, table:\n%s", r.Warnings, text)
			}
			if c.warning == "" && len(r.Warnings) != 0 {
				t.Errorf("warnings %q", r.Warnings)
			}
			if c.promoted != "" && !strings.Contains(text, "evidence: vm-"+c.promoted+" ("+c.promoted+") audited as a vTPM guest because a secret is named for it") {
				t.Errorf("the table does not say which evidence decided:\n%s", text)
			}
		})
	}
}

func tableText(t *testing.T, r *Result) string {
	t.Helper()
	var b strings.Builder
	if err := output.Write(&b, output.Options{Format: "table"}, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
