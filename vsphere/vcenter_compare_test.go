package vsphere

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"testing"

	"github.com/vmware/govmomi/view"
	"github.com/vmware/govmomi/vim25/mo"

	"github.com/vtpmctl/vtpmctl/domain/migration"
)

// TestFilesVsVCenter: a 45-VM vCenter (vTPM + EFI + Secure Boot, EFI
// alone, BIOS; a template) imported from govc vm.info JSON, as a team
// exports it by hand, and straight from vCenter: the same plan for every
// VM. Only vCenter knows the key provider and snapshots, so those are not
// compared.
func TestFilesVsVCenter(t *testing.T) {
	u, user, pass, c := vcsim(t, 23) // 46 VMs
	ctx := context.Background()
	m := view.NewManager(c.Client)
	v, err := m.CreateContainerView(ctx, c.ServiceContent.RootFolder, []string{"VirtualMachine"}, true)
	if err != nil {
		t.Fatal(err)
	}
	var names []mo.VirtualMachine
	if err := v.Retrieve(ctx, []string{"VirtualMachine"}, []string{"name"}, &names); err != nil {
		t.Fatal(err)
	}
	sort.Slice(names, func(i, j int) bool { return names[i].Name < names[j].Name })
	for i, vm := range names {
		switch i % 3 {
		case 0:
			shape(t, c, vm.Name, true, "efi", true)
		case 1:
			shape(t, c, vm.Name, false, "efi", false)
		default:
			shape(t, c, vm.Name, false, "bios", false)
		}
	}
	markTemplate(t, c, names[len(names)-1].Name)

	fromVC, _, _, err := ReadVCenter(ctx, VCenter{URL: u.String(), Username: user, Password: pass, Insecure: true})
	if err != nil {
		t.Fatal(err)
	}
	// govc vm.info -json: every property of every VM, encoding/json as govc writes it.
	var all []mo.VirtualMachine
	if err := v.Retrieve(ctx, []string{"VirtualMachine"}, nil, &all); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(struct {
		VirtualMachines []mo.VirtualMachine `json:"virtualMachines"`
	}{all})
	if err != nil {
		t.Fatal(err)
	}
	govc, err := migration.ParseGovc(data, "", "vm-info.json")
	if err != nil {
		t.Fatal(err)
	}
	for i := range govc {
		govc[i].VCenter = u.Hostname()
	}
	fromFiles, _ := migration.JoinGovc(nil, govc, true)
	if tpl := migration.GovcTemplates(govc); len(tpl) != 1 || tpl[0].Name != names[len(names)-1].Name {
		t.Errorf("templates %+v", tpl)
	}

	pv, _ := migration.Import(fromVC, migration.ImportOptions{TPMModel: "tpm-crb"})
	pf, _ := migration.Import(fromFiles, migration.ImportOptions{TPMModel: "tpm-crb"})
	if len(pv.VMs) != 45 {
		t.Fatalf("vCenter: %d VMs (a template is skipped)", len(pv.VMs))
	}
	key := func(vm migration.PlanVM) string {
		return fmt.Sprintf("fw=%s sb=%s vtpm=%s cpu=%d ram=%d disk=%d flavor=%s image=%s target=%s source=%s",
			vm.Firmware, vm.SecureBoot, vm.SourceVTPM, vm.VCPUs, vm.RAM, vm.DiskGiB, vm.TargetFlavor, vm.TargetImage, vm.TargetVTPM, vm.Source())
	}
	byName := map[string]string{}
	for _, vm := range pf.VMs {
		byName[vm.Name] = key(vm)
	}
	vtpm := 0
	for _, vm := range pv.VMs {
		if got := byName[vm.Name]; got != key(vm) {
			t.Errorf("%s\n  vCenter: %s\n  files:   %s", vm.Name, key(vm), got)
		}
		if vm.SourceVTPM == "yes" {
			vtpm++
		}
	}
	if len(pf.VMs) != len(pv.VMs) || vtpm != 15 {
		t.Errorf("files %d VMs, vCenter %d, %d with a vTPM", len(pf.VMs), len(pv.VMs), vtpm)
	}
}
