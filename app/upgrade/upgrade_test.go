package upgrade

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud/scale"
)

// scaleSession is scale.Session with the login left out of the counts.
func scaleSession(t *testing.T, cfg scale.Config) (*scale.Cloud, *cloud.Session) {
	t.Helper()
	c, sess := scale.Session(t, cfg)
	c.Reset() // count only what the job asks, not the login
	return c, sess
}

// TestCheck: a target older than the cloud is refused as a typed error
// before anything is listed; the release the upgrade starts from is the
// caller's own field (nova.FieldFromRelease); a real upgrade says what it
// strands.
func TestCheck(t *testing.T) {
	c, sess := scaleSession(t, scale.Config{Guests: 40, Projects: 2, Hypervisors: 8, Images: 2, Microversion: "2.93"})
	_, err := Check(context.Background(), sess, Request{To: nova.Yoga, From: nova.ReleaseEvidence{Field: nova.FieldFromRelease}})
	var older *fleet.OlderTargetError
	if !errors.As(err, &older) || older.To != nova.Yoga || older.Cloud != nova.Zed {
		t.Fatalf("older target: %v", err)
	}
	if st := c.Stats(); st.ByRoute["GET /compute/v2.1/servers/detail"]+st.ByRoute["GET /compute/v2.1/os-hypervisors/detail"] != 0 {
		t.Errorf("listed before refusing: %v", st.Routes())
	}
	u, err := Check(context.Background(), sess, Request{To: nova.Dalmatian, From: nova.ReleaseEvidence{Field: nova.FieldFromRelease}})
	if err != nil {
		t.Fatal(err)
	}
	if u.From != "zed" || u.To != "2024.2" || u.Schema != fleet.UpgradeSchema || len(u.Hosts) == 0 || u.Resolved.Release != nova.Zed {
		t.Errorf("upgrade %+v", u)
	}
	if st := c.Stats(); st.NUnexpected != 0 {
		t.Errorf("unexpected requests: %v", st.Unexpected)
	}
}

// TestCheckNamesFrom: on a cloud whose API leaves 2024.1 and 2024.2
// open, the warning names upgrade check's own field (the release it
// starts from), not the release field every other command takes, which
// upgrade check does not have; the CLI spells it as its flag.
func TestCheckNamesFrom(t *testing.T) {
	_, sess := scaleSession(t, scale.Config{Guests: 4, Projects: 1, Hypervisors: 2, Images: 1, Microversion: "2.96"})
	u, err := Check(context.Background(), sess, Request{To: nova.Gazpacho, From: nova.ReleaseEvidence{Field: nova.FieldFromRelease}})
	if err != nil {
		t.Fatal(err)
	}
	spell := func(f nova.Field) string { return "<" + string(f) + ">" }
	if w := u.Resolved.WarningIn(nil, spell); !strings.Contains(w, "pass <"+string(nova.FieldFromRelease)+"> to settle") || strings.Contains(w, "<"+string(nova.FieldRelease)+">") {
		t.Errorf("warning %q", w)
	}
	if u.From != "2024.1 or 2024.2" {
		t.Errorf("from %q", u.From)
	}
}
