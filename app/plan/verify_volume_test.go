package plan

import (
	"context"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/migration"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud/scale"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// TestVerifyCutoverVolumeBacked: VerifyCutover lists the volumes (once)
// and a migrated VM on a volume-backed server gets its vTPM and FIRMWARE
// from its boot volume; without the volume list both came out as the
// plain flavor's (no vTPM) and a skip.
func TestVerifyCutoverVolumeBacked(t *testing.T) {
	sess := scaleSession(t, scale.Config{Guests: 10, Projects: 2, Hypervisors: 2, VolumeBacked: 4})
	// Guest 9 boots from a volume made from the vTPM image (UEFI, q35).
	p, _ := migration.Import([]migration.SourceVM{{Name: scale.GuestName(9), GuestID: "windows11_64Guest", Firmware: "efi", VTPM: "yes", VCPUs: 2, MemoryMiB: 4096}}, migration.ImportOptions{})
	r, _, err := VerifyCutover(context.Background(), sess, VerifyRequest{Plan: p, NoSecrets: true})
	if err != nil {
		t.Fatal(err)
	}
	checks := map[string]migration.VerifyCheck{}
	for _, c := range r.VMs[0].Checks {
		checks[c.Check] = c
	}
	if c := checks[migration.CheckVTPM]; c.Status != result.Pass || !strings.Contains(c.Message, "boot volume") {
		t.Errorf("vTPM: %+v", c)
	}
	if c := checks[migration.CheckFirmware]; c.Status != result.Pass {
		t.Errorf("firmware: %+v", c)
	}
}
