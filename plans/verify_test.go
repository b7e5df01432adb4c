package plans

import (
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/nova"
)

func TestVerify(t *testing.T) {
	p := &Plan{Version: 1, VMs: []PlanVM{
		{Name: "ok", TargetVTPM: "2.0 tpm-crb", TargetFlavor: "vtpm.2c4g40d", TargetImage: "ok"},
		{Name: "wrong-model", TargetVTPM: "2.0 tpm-crb", TargetFlavor: "vtpm.2c4g40d", TargetImage: "wrong-model", BitLockerEscrow: "unconfirmed"},
		{Name: "no-vtpm", TargetVTPM: "2.0 tpm-crb", TargetFlavor: "vtpm.2c4g40d", TargetImage: "no-vtpm", BitLockerEscrow: "confirmed"},
		{Name: "linux", TargetVTPM: "none"},
		{Name: "gone", TargetVTPM: "2.0 tpm-crb", TargetFlavor: "f", TargetImage: "i"},
	}}
	inv := nova.Inventory{
		Guests: []nova.VTPMGuest{{ServerID: "s1", Name: "ok", Version: "2.0", Model: "tpm-crb"}, {ServerID: "s2", Name: "wrong-model", Version: "2.0", Model: "tpm-tis"}},
		Others: map[string]nova.OtherServer{"s3": {Name: "no-vtpm"}, "s4": {Name: "linux"}},
	}
	r := Verify(p, inv, nova.Gazpacho)
	want := map[string]string{"ok": Verified, "wrong-model": Missing, "no-vtpm": Missing, "linux": Verified, "gone": NotFound}
	for _, v := range r.VMs {
		if v.Verdict != want[v.VM] {
			t.Errorf("%s: %s %v", v.VM, v.Verdict, v.Findings)
		}
		if v.Verdict == Missing && (!strings.Contains(v.Remedy, "resize") || len(v.Findings) == 0) {
			t.Errorf("%s: remedy %q findings %v", v.VM, v.Remedy, v.Findings)
		}
	}
	if !r.Failed() || r.Verified != 2 || r.Missing != 2 || r.NotFound != 1 || strings.Join(r.Unconfirmed, ",") != "wrong-model" {
		t.Errorf("%+v", r)
	}
	if s := r.Suites(); len(s[0].Cases) != 5 {
		t.Errorf("junit cases %d", len(s[0].Cases))
	}
}
