package plan

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/migration"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
	"github.com/vtpmctl/vtpmctl/openstack/cinder"
)

// volumesCloud serves a Cinder volume list (the strict fakecloud's route)
// with the volumes a migration tool left, and records each image-metadata
// write: os-set_image_metadata merges into what the volume lists next,
// as Cinder does, so a rerun sees what the first run wrote.
type volumesCloud struct {
	c    *fakecloud.Cloud
	vols []map[string]any
	fail map[string]int // volume ID -> status of its writes
}

func newVolumesCloud(t *testing.T, vols ...map[string]any) *volumesCloud {
	vc := &volumesCloud{c: fakecloud.New(t), vols: vols, fail: map[string]int{}}
	vc.c.Handle(fakecloud.Volumes, func(w http.ResponseWriter, r *http.Request) {
		b, _ := json.Marshal(map[string]any{"volumes": vc.vols})
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	})
	for _, v := range vols {
		id := v["id"].(string)
		vc.c.Handle("POST /volume/v3/"+fakecloud.ProjectID+"/volumes/"+id+"/action [volume 3.0]", func(w http.ResponseWriter, r *http.Request) {
			if st := vc.fail[id]; st != 0 {
				w.WriteHeader(st)
				return
			}
			var body struct {
				Set *struct {
					Metadata map[string]string `json:"metadata"`
				} `json:"os-set_image_metadata"`
			}
			if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Set == nil {
				t.Errorf("volume %s: not an os-set_image_metadata: %v", id, err)
				w.WriteHeader(400)
				return
			}
			md := v["volume_image_metadata"].(map[string]string)
			for k, val := range body.Set.Metadata {
				md[k] = val
			}
			fakecloud.JSON(200, `{"metadata":{}}`)(w, r)
		}).Optional("Cinder with these volumes: a test counts the writes it expects (SentTo); a refused plan writes none")
	}
	return vc
}

func volume(id, name string, bootable bool, meta map[string]string, imageMeta map[string]string) map[string]any {
	if imageMeta == nil {
		imageMeta = map[string]string{}
	}
	return map[string]any{"id": id, "name": name, "status": "available", "bootable": map[bool]string{true: "true", false: "false"}[bootable],
		"os-vol-tenant-attr:tenant_id": fakecloud.ProjectID, "metadata": meta, "volume_image_metadata": imageMeta, "attachments": []any{}}
}

// migratekit's answer: UEFI, q35 and Secure Boot, no TPM.
func migrated() map[string]string {
	return map[string]string{"hw_machine_type": "q35", "hw_firmware_type": "uefi", "os_secure_boot": "required"}
}

const (
	volA = "0a000000-0000-4000-8000-000000000001"
	volB = "0a000000-0000-4000-8000-000000000002"
	volC = "0a000000-0000-4000-8000-000000000003"
	volD = "0a000000-0000-4000-8000-000000000004"
)

func volumePlan() *migration.Plan {
	vm := func(name string) migration.PlanVM {
		return migration.PlanVM{Name: name, VCenter: "https://vc01.example.com/sdk", MoRef: "vm-" + name, TargetImage: "vc01.example.com-" + name}
	}
	return &migration.Plan{Version: 1,
		Images: []migration.PlanImage{
			{Name: "vc01.example.com-by-source", TPMVersion: "2.0", TPMModel: "tpm-crb", Windows: true},
			{Name: "vc01.example.com-by-name", TPMVersion: "2.0", TPMModel: "tpm-crb", Windows: true},
			{Name: "vc01.example.com-by-rule", TPMVersion: "2.0", TPMModel: "tpm-crb", Windows: true},
			{Name: "vc01.example.com-not-landed", TPMVersion: "2.0"},
		},
		VMs: []migration.PlanVM{vm("by-source"), vm("by-name"), vm("by-rule"), vm("not-landed")},
	}
}

// TestApplyVolumes: a planned VM's boot volume, found by its
// vtpmctl:source metadata, by the plan image's name or by a match rule,
// gets the vTPM the plan promised (plus the source stamp) in one
// os-set_image_metadata; the properties the tool already set are not
// sent again; the images whose disks landed on volumes are no longer
// pending; a rerun sends no write.
func TestApplyVolumes(t *testing.T) {
	vc := newVolumesCloud(t,
		volume(volA, "disk-0", true, map[string]string{migration.SourceKey: "vc01.example.com/vm-by-source"}, migrated()),
		volume(volB, "vc01.example.com-by-name", true, nil, migrated()),
		volume(volC, "w2019-root", true, nil, migrated()),
		volume(volD, "data-1", false, map[string]string{migration.SourceKey: "vc01.example.com/vm-by-name-data"}, nil),
	)
	p := volumePlan()
	ctx := context.Background()
	cl := vc.c.ServiceClient("volume/v3/" + fakecloud.ProjectID)
	rules := []migration.MatchRule{{VM: "by-rule", Server: "w2019-root"}}
	conv := &Convergence{Missing: []string{"vc01.example.com-by-source", "vc01.example.com-by-name", "vc01.example.com-by-rule", "vc01.example.com-not-landed"}}
	if err := DiffVolumes(ctx, cl, conv, p, rules, false); err != nil {
		t.Fatal(err)
	}
	if len(conv.Volumes) != 3 || strings.Join(conv.Missing, ",") != "vc01.example.com-not-landed" {
		t.Fatalf("volumes %+v, missing %v", conv.Volumes, conv.Missing)
	}
	by := map[string]string{volA: "volume metadata " + migration.SourceKey, volB: "name", volC: "match rule"}
	for _, vp := range conv.Volumes {
		writes := map[string]string{}
		for _, w := range nova.Writes(vp.Changes) {
			writes[w.Key] = w.New
		}
		_, resent := writes["hw_firmware_type"]
		if resent || len(writes) != 5 || writes["os_type"] != "windows" || writes[nova.ImageTPMVersion] != "2.0" || writes["hw_tpm_model"] != "tpm-crb" || !strings.HasPrefix(writes[migration.SourceKey], "vc01.example.com/vm-") {
			t.Errorf("volume %s writes %v (the tool's UEFI/q35/Secure Boot must not be sent again)", vp.Name, writes)
		}
		if !strings.Contains(strings.Join(vp.Notes, "; "), "matched by "+by[vp.ID]) {
			t.Errorf("volume %s notes %q, want matched by %s", vp.Name, vp.Notes, by[vp.ID])
		}
	}
	ApplyVolumes(ctx, cl, conv)
	if conv.Failed() != 0 {
		t.Fatalf("failed: %+v", conv.Volumes)
	}
	for _, id := range []string{volA, volB, volC} {
		if n := len(vc.c.SentTo("POST", "/volume/v3/"+fakecloud.ProjectID+"/volumes/"+id+"/action")); n != 1 {
			t.Errorf("volume %s: %d writes, want 1", id, n)
		}
	}
	// Rerun: everything is in place, nothing is written.
	before := len(vc.c.Sent())
	again := &Convergence{}
	if err := DiffVolumes(ctx, cl, again, p, rules, false); err != nil {
		t.Fatal(err)
	}
	ApplyVolumes(ctx, cl, again)
	if sent := vc.c.Sent()[before:]; len(sent) != 1 || again.Failed() != 0 {
		t.Errorf("rerun sent %v", sent)
	}
	for _, vp := range again.Volumes {
		if len(nova.Writes(vp.Changes)) != 0 {
			t.Errorf("rerun plans writes on %s: %+v", vp.Name, vp.Changes)
		}
	}
}

// TestApplyVolumesRefused: a write Cinder refuses is that volume's
// failure (counted, with why) while the others are written; a boot
// volume that is not one volume, a rule naming none, and a request Nova
// refuses are PlanErrors or errors before any write.
func TestApplyVolumesRefused(t *testing.T) {
	ctx := context.Background()
	t.Run("403 on one volume", func(t *testing.T) {
		vc := newVolumesCloud(t,
			volume(volA, "disk-0", true, map[string]string{migration.SourceKey: "vc01.example.com/vm-by-source"}, migrated()),
			volume(volB, "vc01.example.com-by-name", true, nil, migrated()))
		vc.fail[volA] = 403
		cl := vc.c.ServiceClient("volume/v3/" + fakecloud.ProjectID)
		conv := &Convergence{}
		if err := DiffVolumes(ctx, cl, conv, volumePlan(), nil, false); err != nil {
			t.Fatal(err)
		}
		ApplyVolumes(ctx, cl, conv)
		if conv.Failed() != 1 {
			t.Fatalf("failed %d: %+v", conv.Failed(), conv.Volumes)
		}
		for _, vp := range conv.Volumes {
			if (vp.Err != nil) != (vp.ID == volA) || vp.Err != nil && !strings.Contains(vp.Err.Error(), "403") {
				t.Errorf("volume %s: %v", vp.Name, vp.Err)
			}
		}
	})
	for _, c := range []struct {
		name  string
		vols  []map[string]any
		rules []migration.MatchRule
		plan  func(p *migration.Plan)
		want  string
		usage bool
	}{
		{"two bootable volumes by name", []map[string]any{volume(volA, "vc01.example.com-by-name", true, nil, nil), volume(volB, "vc01.example.com-by-name", true, nil, nil)},
			nil, nil, "VM by-name: 2 bootable volumes match by name (" + volA + ", " + volB + "); name the boot volume with a match rule", true},
		{"a data volume of the same name is not the boot volume", []map[string]any{volume(volA, "vc01.example.com-by-name", true, nil, nil), volume(volB, "vc01.example.com-by-name", false, nil, nil)},
			nil, nil, "", false},
		{"rule names no volume", []map[string]any{volume(volA, "disk-0", true, nil, nil)},
			[]migration.MatchRule{{VM: "by-rule", Server: "nope"}}, nil, `VM by-rule: the match rule names volume "nope"`, true},
		{"one volume for two VMs", []map[string]any{volume(volA, "shared", true, nil, nil)},
			[]migration.MatchRule{{VM: "by-rule", Server: "shared"}, {VM: "by-name", Server: "shared"}}, nil, "matches both VM", true},
		{"Nova refuses the plan's TPM", []map[string]any{volume(volA, "vc01.example.com-by-name", true, nil, nil)},
			nil, func(p *migration.Plan) { p.Images[1].TPMVersion, p.Images[1].Windows = "3.0", false }, "volume vc01.example.com-by-name (VM by-name)", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			vc := newVolumesCloud(t, c.vols...)
			p := volumePlan()
			if c.plan != nil {
				c.plan(p)
			}
			conv := &Convergence{}
			err := DiffVolumes(ctx, vc.c.ServiceClient("volume/v3/"+fakecloud.ProjectID), conv, p, c.rules, false)
			var pe *PlanError
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("error %v", err)
			case c.want == "" && len(conv.Volumes) != 1:
				t.Fatalf("volumes %+v", conv.Volumes)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || errors.As(err, &pe) != c.usage):
				t.Fatalf("error %v, want %q (plan error: %v)", err, c.want, c.usage)
			}
			for _, r := range vc.c.Sent() {
				if r.Method != "GET" {
					t.Errorf("a write before the plan was settled: %s", r)
				}
			}
		})
	}
}

// TestMatchVolumesByStamp: plan apply stamps vtpmctl:source into the
// boot volume's image metadata, so a rerun (here without the rule that
// found it first) finds the volume by that stamp, not by a volume that
// merely carries the VM's name.
func TestMatchVolumesByStamp(t *testing.T) {
	p := volumePlan()
	vols := []cinder.Volume{
		{ID: volC, Name: "w2019-root", Bootable: true, ImageMetadata: map[string]string{migration.SourceKey: p.VMs[2].Source()}},
		{ID: volB, Name: "by-rule", Bootable: true},
	}
	m, _, err := MatchVolumes(p, vols, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := m[2]; got.Volume.ID != volC || got.By != "volume image metadata "+migration.SourceKey {
		t.Errorf("VM by-rule matched %s by %q, want %s by its image-metadata stamp", got.Volume.ID, got.By, volC)
	}
}

// TestMatchVolumesNameNeedsBootable: a lone data volume named like the
// VM (or its plan image, or a template) is not its boot volume: it is
// not written, the VM's image stays pending, and a note says why.
func TestMatchVolumesNameNeedsBootable(t *testing.T) {
	for _, c := range []struct {
		name, vol string
		rules     []migration.MatchRule
	}{
		{"plan image name", "vc01.example.com-by-name", nil},
		{"VM name", "by-name", nil},
		{"template", "data-by-name", []migration.MatchRule{{Template: "data-{vm}"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			vc := newVolumesCloud(t, volume(volB, c.vol, false, nil, nil))
			conv := &Convergence{Missing: []string{"vc01.example.com-by-name"}}
			if err := DiffVolumes(context.Background(), vc.c.ServiceClient("volume/v3/"+fakecloud.ProjectID), conv, volumePlan(), c.rules, false); err != nil {
				t.Fatal(err)
			}
			if len(conv.Volumes) != 1 || len(nova.Writes(conv.Volumes[0].Changes)) != 0 {
				t.Fatalf("a data volume planned as a boot volume: %+v", conv.Volumes)
			}
			if n := strings.Join(conv.Volumes[0].Notes, "; "); !strings.Contains(n, "not bootable: not taken as the boot volume of VM by-name") {
				t.Errorf("notes %q", n)
			}
			if strings.Join(conv.Missing, ",") != "vc01.example.com-by-name" {
				t.Errorf("missing %v: the image has not landed", conv.Missing)
			}
		})
	}
}
