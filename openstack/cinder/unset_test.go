package cinder

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// removals is an unset plan (volume unset): every key removed.
func removals(id string, keys ...string) []nova.ObjectPlan {
	p := nova.ObjectPlan{ID: id, Name: "win"}
	for _, k := range keys {
		p.Changes = append(p.Changes, nova.Change{Key: k, Old: "x", Action: nova.Removed})
	}
	return []nova.ObjectPlan{p}
}

func unsetRoute(id, key string, status int, answer string) route {
	return route{method: "POST", path: "/v3/p1/volumes/" + id + "/action", body: `{"os-unset_image_metadata":{"key":"` + key + `"}}`, status: status, answer: answer}
}

const (
	unsetVol = "11111111-1111-1111-1111-111111111111"
	// Cinder's 404 for a key the volume lacks (GlanceMetadataNotFound).
	noKey = `{"itemNotFound":{"code":404,"message":"Glance metadata for volume/snapshot 11111111-1111-1111-1111-111111111111 cannot be found."}}`
)

// TestUnsetKeyAlreadyGone: Cinder's 404 for a key the volume no longer
// has (removed by a rerun, or by someone else) is what was asked: the
// volume, read back once for all such keys, lacks them, and the other
// removals are sent. Before, the 404 failed the volume and no later
// removal was sent.
func TestUnsetKeyAlreadyGone(t *testing.T) {
	c := strictCinder(t,
		unsetRoute(unsetVol, "hw_tpm_version", 404, noKey),
		unsetRoute(unsetVol, "hw_tpm_model", 200, ""),
		unsetRoute(unsetVol, "os_type", 404, noKey),
		route{method: "GET", path: "/v3/p1/volumes/" + unsetVol, status: 200, answer: `{"volume":{"id":"` + unsetVol + `","name":"win","bootable":"true","volume_image_metadata":{"image_id":"img1"}}}`},
	)
	plans := removals(unsetVol, "hw_tpm_version", "hw_tpm_model", "os_type")
	ApplyVolumePlans(context.Background(), c, plans, []Volume{{ID: unsetVol, Name: "win"}})
	if plans[0].Err != nil {
		t.Errorf("keys already gone: %v, want success", plans[0].Err)
	}
}

// TestUnsetEveryKeyTried: a real failure on one key does not stop the
// next; the error names every key that failed, and the keys removed are
// reported written. A 404 is a failure where the volume still has the
// key, or is gone itself.
func TestUnsetEveryKeyTried(t *testing.T) {
	gone := "22222222-2222-2222-2222-222222222222"
	c := strictCinder(t,
		unsetRoute(unsetVol, "hw_tpm_version", 500, `{"computeFault":{"message":"boom"}}`),
		unsetRoute(unsetVol, "hw_tpm_model", 200, ""),
		unsetRoute(unsetVol, "os_type", 404, noKey),
		unsetRoute(unsetVol, "os_distro", 200, ""),
		route{method: "GET", path: "/v3/p1/volumes/" + unsetVol, status: 200, answer: `{"volume":{"id":"` + unsetVol + `","volume_image_metadata":{"os_type":"windows"}}}`},
		unsetRoute(gone, "hw_tpm_version", 404, `{"itemNotFound":{"code":404}}`),
		unsetRoute(gone, "hw_tpm_model", 404, `{"itemNotFound":{"code":404}}`),
		route{method: "GET", path: "/v3/p1/volumes/" + gone, status: 404, answer: `{"itemNotFound":{"code":404}}`},
	)
	plans := append(removals(unsetVol, "hw_tpm_version", "hw_tpm_model", "os_type", "os_distro"), removals(gone, "hw_tpm_version", "hw_tpm_model")...)
	ApplyVolumePlans(context.Background(), c, plans, []Volume{{ID: unsetVol, Name: "win"}, {ID: gone, Name: "old"}})
	var pw *nova.PartialWriteError
	if !errors.As(plans[0].Err, &pw) {
		t.Fatalf("Err %v (%T), want a PartialWriteError", plans[0].Err, plans[0].Err)
	}
	if strings.Join(pw.Written, ",") != "hw_tpm_model,os_distro" || strings.Join(pw.NotWritten, ",") != "hw_tpm_version,os_type" {
		t.Errorf("written %v, not written %v", pw.Written, pw.NotWritten)
	}
	for _, k := range []string{"removing hw_tpm_version", "removing os_type"} {
		if !strings.Contains(pw.Error(), k) {
			t.Errorf("error %q does not say %q", pw.Error(), k)
		}
	}
	if err := plans[1].Err; err == nil || errors.As(err, &pw) || !strings.Contains(err.Error(), "removing hw_tpm_model") {
		t.Errorf("volume gone: %v, want both removals failed, nothing written", err)
	}
}

// TestUnsetAll403Once: a volume of another project refuses every key;
// the error says so once, naming the project, not once per key.
func TestUnsetAll403Once(t *testing.T) {
	deny := `{"forbidden":{"message":"Policy doesn't allow"}}`
	c := strictCinder(t, unsetRoute(unsetVol, "hw_tpm_version", 403, deny), unsetRoute(unsetVol, "hw_tpm_model", 403, deny))
	plans := removals(unsetVol, "hw_tpm_version", "hw_tpm_model")
	ApplyVolumePlans(context.Background(), c, plans, []Volume{{ID: unsetVol, Name: "win", ProjectID: "p9"}})
	if err := plans[0].Err; err == nil || strings.Count(err.Error(), "project p9") != 1 {
		t.Errorf("403: %v, want the owning project named once", err)
	}
}
