package vtpmsecret

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// TestAuditUnconfirmed: a server decided "no vTPM" from properties as
// they are now (its boot volume's, its image's before 2.98) with a secret
// named for it is audited as a vTPM guest, decided by the secret, with
// words true for its reason (and for a pending resize); before, its
// secret was a live server's orphan ("resized away?") and the guest was
// missed. Without a secret it stays decided: no guest, not counted or
// warned as undecided.
func TestAuditUnconfirmed(t *testing.T) {
	unconfirmed := func(id, status string, r nova.Unconfirmed) nova.UnconfirmedServer {
		return nova.UnconfirmedServer{Guest: Guest{ServerID: id, Name: "vm-" + id, ProjectID: "p1", UserID: "alice", Status: status, Mode: nova.SecretUser}, Reason: r}
	}
	for _, c := range []struct {
		name     string
		server   nova.UnconfirmedServer
		secret   bool
		words    []string // in the footer and the JSON's evidence_reason
		notWords string
	}{
		{"boot volume untagged since boot", unconfirmed("srv2", "ACTIVE", nova.UnconfirmedVolumeNow), true,
			[]string{"boot volume's image properties as they are now ask for no vTPM", "Nova's delete of the secret failed"}, "VERIFY_RESIZE"},
		{"image untagged since boot", unconfirmed("srv2", "SHUTOFF", nova.UnconfirmedImageNow), true,
			[]string{"its image as it is now asks for no vTPM", "only from microversion 2.98"}, "VERIFY_RESIZE"},
		{"resized to a flavor without vTPM, not confirmed", unconfirmed("srv2", "VERIFY_RESIZE", nova.UnconfirmedVolumeNow), true,
			[]string{"boot volume's", "resized from a vTPM flavor to one without and awaits the confirm (status VERIFY_RESIZE"}, ""},
		{"no secret: decided, nothing to say", unconfirmed("srv3", "ACTIVE", nova.UnconfirmedVolumeNow), false, nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := baseFacts()
			f.Unconfirmed = []nova.UnconfirmedServer{c.server}
			f.OtherServers = map[string]nova.OtherServer{c.server.Guest.ServerID: {Name: c.server.Guest.Name}}
			if c.secret {
				s := f.Secrets.At(0)
				s.ID, s.InstanceID = "s2", c.server.Guest.ServerID
				f.Secrets.Add(s)
			}
			r := Audit(f, now)
			if len(r.Orphans) != 0 || len(r.Undecided) != 0 || len(r.Warnings) != 0 {
				t.Fatalf("orphans %+v, undecided %v, warnings %q", r.Orphans, r.Undecided, r.Warnings)
			}
			text := tableText(t, &r)
			if !c.secret {
				if r.Summary.Guests != 1 || len(r.Guests) != 1 || strings.Contains(text, "undecided") || strings.Contains(text, "evidence:") {
					t.Errorf("summary %+v, table:\n%s", r.Summary, text)
				}
				return
			}
			if r.Summary.Guests != 2 || len(r.Guests) != 2 || r.Summary.OK != 2 {
				t.Fatalf("summary %+v", r.Summary)
			}
			g := r.Guests[1]
			if g.ServerID != "srv2" || g.Evidence != nova.EvidenceSecret || g.Unconfirmed != c.server.Reason || g.Undecided != "" || g.SecretID != "s2" || g.Failed() {
				t.Errorf("promoted guest %+v", g)
			}
			js, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(js), `"unconfirmed":"`+string(c.server.Reason)+`"`) {
				t.Errorf("the JSON does not say why: %s", js)
			}
			if !strings.Contains(text, "evidence: vm-srv2 (srv2) audited as a vTPM guest because a secret is named for it though ") {
				t.Errorf("the table does not say which evidence decided:\n%s", text)
			}
			for _, w := range c.words {
				if !strings.Contains(g.EvidenceReason, w) || !strings.Contains(text, w) {
					t.Errorf("missing %q: evidence_reason %q, table:\n%s", w, g.EvidenceReason, text)
				}
			}
			if c.notWords != "" && strings.Contains(text, c.notWords) {
				t.Errorf("says %q for status %s:\n%s", c.notWords, g.Status, text)
			}
		})
	}
}
