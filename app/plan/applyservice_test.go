package plan

import (
	"context"
	"errors"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/migration"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud/scale"
)

// A dry run settles the release and diffs the plan against the cloud
// (strict: any request the cloud does not serve fails the test) and
// writes nothing. A volume rule without block storage is
// ErrNoBlockStorage; with it, a rule naming a volume the cloud lacks is a
// DiffError (a PlanError inside), which the command words with the plan file.
func TestApplyService(t *testing.T) {
	sess := scaleSession(t, scale.Config{Guests: 2, Projects: 1, Hypervisors: 1})
	p, _ := migration.Import([]migration.SourceVM{{Name: scale.GuestName(0), GuestID: "windows11_64Guest", Firmware: "efi", VTPM: "yes", VCPUs: 2, MemoryMiB: 4096}}, migration.ImportOptions{})
	res, err := Apply(context.Background(), sess, ApplyRequest{Plan: p})
	if err != nil {
		t.Fatal(err)
	}
	if res.Release.Release != nova.Zed || res.Convergence == nil {
		t.Fatalf("release %s, convergence %+v", res.Release.Release, res.Convergence)
	}
	if len(res.Flavors) == 0 {
		t.Errorf("the plan's flavor is not in the diff: %+v", res.Convergence)
	}
	rule, err := migration.ParseMatch(scale.GuestName(0) + "=no-such-volume")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(context.Background(), sess, ApplyRequest{Plan: p, Rules: []migration.MatchRule{rule}}); !errors.Is(err, ErrNoBlockStorage) {
		t.Fatalf("without block storage: %v", err)
	}
	sess = scaleSession(t, scale.Config{Guests: 2, Projects: 1, Hypervisors: 1, VolumeBacked: 1})
	_, err = Apply(context.Background(), sess, ApplyRequest{Plan: p, Rules: []migration.MatchRule{rule}})
	var de *DiffError
	var pe *PlanError
	if !errors.As(err, &de) || !errors.As(err, &pe) {
		t.Fatalf("err %v (%T), want a DiffError around a PlanError", err, err)
	}
}
