package hostcheck

import (
	"encoding/json"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// TestTriStateJSON: the typed answers write the words reports have
// always had, and read them back; the release is its name.
func TestTriStateJSON(t *testing.T) {
	r := Report{Host: "h", NovaRelease: nova.Dalmatian, VTPMGuests: []Guest{{UUID: "u", StateKept: No}},
		Facts: HostInfo{StateKept: &StateKept{Kept: Unknown, Evidence: "e"}, SwtpmMigration: Yes, SecretsKept: No}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		NovaRelease string `json:"nova_release"`
		Guests      []struct {
			StateKept string `json:"vtpm_state_kept"`
		} `json:"vtpm_guests"`
		Facts struct {
			StateKept struct {
				Kept string `json:"kept"`
			} `json:"vtpm_state_kept"`
			SwtpmMigration string `json:"swtpm_migration"`
			SecretsKept    string `json:"libvirt_secrets_survive_recreate"`
		} `json:"facts"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	if raw.NovaRelease != "2024.2" || raw.Guests[0].StateKept != "no" || raw.Facts.StateKept.Kept != "unknown" || raw.Facts.SwtpmMigration != "yes" || raw.Facts.SecretsKept != "no" {
		t.Errorf("JSON %s", b)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil || back.NovaRelease != nova.Dalmatian || back.VTPMGuests[0].StateKept != No || back.Facts.StateKept.Kept != Unknown || back.Facts.SwtpmMigration != Yes || back.Facts.SecretsKept != No {
		t.Errorf("read back %+v, %v", back, err)
	}
}
