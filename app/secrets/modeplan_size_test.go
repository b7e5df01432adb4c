package secrets

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// The server list embeds the instance's own flavor sizes (2.47+): they,
// not the catalog flavor of that name (re-created smaller, or deleted),
// decide which flavors fit; a volume-backed server may take a smaller
// flavor disk; the catalog still says whether the flavor is private.
func TestPlanModeChangesOwnFlavorSize(t *testing.T) {
	userF := nova.Flavor{Name: "w1", ExtraSpecs: map[string]string{"hw:tpm_version": "2.0"}}
	gone := nova.Flavor{Name: "w0", ExtraSpecs: map[string]string{"hw:tpm_version": "2.0"}}
	hostF := nova.CloudFlavor{ID: "h", VCPUs: 4, RAM: 8192, Disk: 40, Flavor: nova.Flavor{Name: "w1-host",
		ExtraSpecs: map[string]string{"hw:tpm_version": "2.0", "hw:tpm_secret_security": "host"}}}
	big := nova.FlavorSize{VCPUs: 8, RAM: 8192, Disk: 40, Known: true}
	fits := nova.FlavorSize{VCPUs: 4, RAM: 8192, Disk: 80, Known: true}
	inv := nova.Inventory{Servers: map[string]nova.Server{
		"a": {ID: "a", Name: "a", ImageID: "img", Flavor: userF, FlavorSize: big}, // w1 re-created with 2 vCPUs
		"b": {ID: "b", Name: "b", ImageID: "img", Flavor: gone, FlavorSize: fits}, // local 80 GB root disk: no smaller one
		"c": {ID: "c", Name: "c", Flavor: gone, FlavorSize: fits},                 // volume-backed: 40 GB fits
		"d": {ID: "d", Name: "d", ImageID: "img", Flavor: gone},                   // size unknown: fits
	}}
	catalog := []nova.CloudFlavor{{ID: "w", VCPUs: 2, RAM: 4096, Disk: 40, Flavor: userF}, hostF}
	got := []string{}
	for _, r := range PlanModeChanges(inv, catalog, nova.Gazpacho, ModeChangeRequest{To: nova.SecretHost}) {
		nf := ""
		if f := r.NewFlavor; f != nil {
			nf = fmt.Sprintf("%s %d/%d/%d private=%v %s/%s/%s", f.Name, f.VCPUs, f.RAM, f.Disk, f.Private, f.TPMVersion, f.TPMModel, f.SecretSecurity)
		}
		got = append(got, r.ServerID+":"+string(r.Verdict)+":"+strings.Join(r.Flavors, ",")+":"+nf)
	}
	want := []string{
		"a:no-flavor::w1-host 8/8192/40 private=true 2.0/tpm-tis/host",
		"b:no-flavor::w0-host 4/8192/80 private=false 2.0/tpm-tis/host",
		"c:resize:w1-host:",
		"d:resize:w1-host:",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A volume list that failed leaves volume-backed servers undecided: the
// plan says how many it could not see, and why.
func TestModeChangeUndecidedWarnings(t *testing.T) {
	u := func(id string, r nova.Undecided) nova.UndecidedServer {
		return nova.UndecidedServer{Guest: nova.VTPMGuest{ServerID: id}, Reason: r}
	}
	inv := nova.Inventory{VolumesErr: errors.New("listing volumes: 503"), Undecided: []nova.UndecidedServer{
		u("a", nova.UndecidedVolumesUnreadable), u("b", nova.UndecidedVolumesUnreadable), u("c", nova.UndecidedImageGone)}}
	got := strings.Join(modePlanWarnings(inv), "\n")
	want := "1 server(s) not planned: their vTPM is undecided (image_gone)\n2 server(s) not planned: their vTPM is undecided (volumes_unreadable): listing volumes: 503"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	r := ModeChangeResult{Warnings: modePlanWarnings(inv)}
	if f := strings.Join(r.Table().Footer, "\n"); !strings.Contains(f, "warning: 2 server(s) not planned") {
		t.Errorf("footer %q", f)
	}
	if modePlanWarnings(nova.Inventory{}) != nil {
		t.Error("a warning without undecided servers")
	}
}
