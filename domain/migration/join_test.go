package migration

import (
	"fmt"
	"testing"
)

// TestJoinGovcVCenters: two vCenters reuse MoRefs and VM names; a govc file
// that says its vCenter (--govc-from) joins only that vCenter's VMs.
func TestJoinGovcVCenters(t *testing.T) {
	inv := func() []SourceVM {
		return []SourceVM{
			{Name: "app", VCenter: "https://vc01.example.com/sdk", MoRef: "vm-7", VTPM: "unknown"},
			{Name: "app", VCenter: "vc02.example.com", MoRef: "vm-7", VTPM: "unknown"},
			{Name: "db", VCenter: "vc02.example.com", MoRef: "vm-9", VTPM: "unknown"},
		}
	}
	for _, tc := range []struct {
		name  string
		govc  []GovcVM
		add   bool
		want  string // VTPM of each inventory VM
		count int
		unmat int
	}{
		{name: "by (vCenter, MoRef)", govc: []GovcVM{{Name: "app", VCenter: "VC02.example.com", MoRef: "vm-7", VTPM: true}}, want: "[unknown yes unknown]", count: 3},
		{name: "MoRef without vCenter on two vCenters: no join, names ambiguous",
			govc: []GovcVM{{Name: "app", MoRef: "vm-7", VTPM: true}}, want: "[unknown unknown unknown]", count: 3, unmat: 1},
		{name: "a unique name within the file's vCenter", govc: []GovcVM{{Name: "db", VCenter: "vc02.example.com", VTPM: true}}, want: "[unknown unknown yes]", count: 3},
		{name: "never across vCenters", govc: []GovcVM{{Name: "db", VCenter: "vc01.example.com", VTPM: true}}, want: "[unknown unknown unknown]", count: 3, unmat: 1},
	} {
		vms, unmatched := JoinGovc(inv(), tc.govc, tc.add)
		var got []string
		for _, v := range vms[:3] {
			got = append(got, v.VTPM)
		}
		if fmt.Sprint(got) != tc.want || len(vms) != tc.count || len(unmatched) != tc.unmat {
			t.Errorf("%s: %v (%d VMs, unmatched %v)", tc.name, got, len(vms), unmatched)
		}
	}
	// govc files only, one per vCenter: the same name twice stays two VMs.
	vms, _ := JoinGovc(nil, []GovcVM{
		{Name: "app", VCenter: "vc01", MoRef: "vm-7", VTPM: true},
		{Name: "app", VCenter: "vc02", MoRef: "vm-7"},
	}, true)
	if len(vms) != 2 || vms[0].VTPM != "yes" || vms[1].VTPM != "no" || vms[1].VCenter != "vc02" || vms[0].VCenter == vms[1].VCenter {
		t.Errorf("%+v", vms)
	}
}
