package main

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// TestVolumeSetRefusesDataVolume: naming fx-data (not bootable) to
// volume set is refused as bad input (exit 2) naming the volume, and
// nothing is written; --select never picked it. Before, its image
// metadata was written without a word.
func TestVolumeSetRefusesDataVolume(t *testing.T) {
	_, actions := volumeCloud(t)
	_, errs, code := runCLI(t, "--os-cloud", "fake", "volume", "set", "fx-data", "--tpm-version", "2.0")
	if code != 2 || !strings.Contains(errs, "vtpmctl: volume fx-data (2c4e6a80-1b3d-4f5a-8c7e-9d1f3a5b7c03) is not bootable") || len(*actions) != 0 {
		t.Errorf("volume set fx-data: exit %d, actions %v: %s", code, *actions, errs)
	}
}

// TestVolumeUnsetEveryKey: volume unset of fx-win11-boot removes two
// keys. Cinder's 404 for one already gone is success once the volume,
// read back, lacks it; a real failure of the other does not stop it, and
// the command says which key failed, with exit 1. Before, the first
// answer that was not 200 failed the volume and the next key was never
// sent.
func TestVolumeUnsetEveryKey(t *testing.T) {
	const boot = "9b2e7c40-3f1a-4d8b-8c6e-5a4d3c2b1a01"
	for _, tc := range []struct {
		name   string
		answer map[string]int // key → Cinder's status
		code   int
		say    string
	}{
		{"both already gone", map[string]int{"hw_tpm_version": 404, "hw_tpm_model": 404}, 0, ""},
		{"one refused, the other gone", map[string]int{"hw_tpm_version": 400, "hw_tpm_model": 404}, 1,
			"vtpmctl: fx-win11-boot: partly changed: hw_tpm_model written, hw_tpm_version not: removing hw_tpm_version: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := volumeCloud(t)
			var mu sync.Mutex
			var sent []string
			c.Handle("POST "+volPath+"* [volume 3.0]", func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				defer mu.Unlock()
				for key, status := range tc.answer {
					if strings.Contains(string(b), `"key":"`+key+`"`) {
						sent = append(sent, key)
						fakecloud.JSON(status, fmt.Sprintf(`{"error":{"code":%d}}`, status))(w, r)
						return
					}
				}
				t.Errorf("unexpected action %s", b)
			})
			reads := 0
			c.Handle("GET "+volPath+"* [volume 3.0]", func(w http.ResponseWriter, r *http.Request) {
				reads++
				meta := `{"hw_tpm_version":"2.0","hw_tpm_model":"tpm-crb"}`
				if reads > 1 { // read back after a 404: both keys gone
					meta = `{}`
				}
				fakecloud.JSON(200, `{"volume":{"id":"`+boot+`","name":"fx-win11-boot","bootable":"true","volume_image_metadata":`+meta+`}}`)(w, r)
			})
			_, errs, code := runCLI(t, "--os-cloud", "fake", "volume", "unset", boot)
			if code != tc.code || !strings.Contains(errs, tc.say) || len(sent) != 2 || reads != 2 {
				t.Errorf("exit %d, want %d; removals sent %v, volume read %d time(s) (want both, twice):\n%s", code, tc.code, sent, reads, errs)
			}
		})
	}
}
