package nova

import (
	"reflect"
	"testing"
)

// The libvirt driver (migrate_disk_and_power_off) refuses a smaller root
// disk only for a local one, and a smaller ephemeral disk always.
func TestPlanModeChangeDisks(t *testing.T) {
	cur := cfl("w1", 4, 8192, 80, "hw:tpm_version=2.0", "hw:tpm_model=tpm-crb")
	same := cfl("w1-host", 4, 8192, 80, "hw:tpm_version=2.0", "hw:tpm_model=tpm-crb", "hw:tpm_secret_security=host")
	small := cfl("w1-host-20", 4, 8192, 20, "hw:tpm_version=2.0", "hw:tpm_model=tpm-crb", "hw:tpm_secret_security=host")
	eph := cfl("w1-host-eph", 4, 8192, 80, "hw:tpm_version=2.0", "hw:tpm_model=tpm-crb", "hw:tpm_secret_security=host")
	eph.Ephemeral = 10
	for _, c := range []struct {
		name         string
		volumeBacked bool
		ephemeral    int
		flavors      []string
		ephNeed      bool
	}{
		{name: "local root disk: no smaller disk", flavors: []string{"w1-host", "w1-host-eph"}},
		{name: "volume-backed: a smaller flavor disk fits", volumeBacked: true, flavors: []string{"w1-host", "w1-host-20", "w1-host-eph"}},
		// no candidate has 20 GB of ephemeral disk: none fits, and the
		// flavor to create needs one as large
		{name: "ephemeral disk: the target needs one as large", ephemeral: 20, flavors: []string{}, ephNeed: true},
		{name: "ephemeral disk: a target with one fits", ephemeral: 10, flavors: []string{"w1-host-eph"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := PlanModeChange(ModeChangeInput{Release: Gazpacho, Flavor: cur, SizeKnown: true, AccessKnown: true, To: SecretHost,
				VolumeBacked: c.volumeBacked, Ephemeral: c.ephemeral, Candidates: []CloudFlavor{cur, same, small, eph}})
			if !reflect.DeepEqual(p.Flavors, c.flavors) {
				t.Errorf("flavors %v, want %v", p.Flavors, c.flavors)
			}
			if got := p.NewFlavor != nil && p.NewFlavor.Ephemeral == 20; got != c.ephNeed {
				t.Errorf("new flavor %+v", p.NewFlavor)
			}
		})
	}
}
