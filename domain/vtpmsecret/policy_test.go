package vtpmsecret

import (
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

func TestPredictSecretCreate(t *testing.T) {
	vtpm := func(rel nova.Release, mode string) nova.Decision {
		specs := map[string]string{"hw:tpm_version": "2.0"}
		if mode != "" {
			specs["hw:tpm_secret_security"] = mode
		}
		return nova.Decide(nova.Flavor{Name: "f", ExtraSpecs: specs}, nova.Image{Name: "i"}, rel)
	}
	for _, c := range []struct {
		name    string
		d       nova.Decision
		roles   []string
		refused bool
	}{
		{"member only on Zed", vtpm(nova.Zed, ""), []string{"member", "reader"}, true},
		{"creator on Zed", vtpm(nova.Zed, ""), []string{"member", "creator"}, false},
		{"admin on 2025.1", vtpm(nova.Epoxy, ""), []string{"admin", "member", "reader"}, false},
		{"member only on 2025.1", vtpm(nova.Epoxy, ""), []string{"member", "reader"}, true},
		{"member only on 2026.1", vtpm(nova.Gazpacho, "user"), []string{"member", "reader"}, false},
		{"creator without member on 2026.1", vtpm(nova.Gazpacho, "host"), []string{"creator"}, true},
		{"deployment mode uses Nova's service user", vtpm(nova.Gazpacho, "deployment"), []string{"reader"}, false},
		{"no vTPM, no secret", nova.Decide(nova.Flavor{Name: "f"}, nova.Image{Name: "i"}, nova.Epoxy), []string{"reader"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := PredictSecretCreate(c.d, c.roles)
			if (got.Error != nil) != c.refused {
				t.Fatalf("refused = %v, want %v (%+v)", got.Error != nil, c.refused, got.Error)
			}
			if c.refused {
				if got.Error.Message != MaxRetriesMessage || got.Error.Stage != nova.StageBuild {
					t.Errorf("error %+v", got.Error)
				}
				if n := strings.Join(got.Notes, " "); !strings.Contains(n, "Secret creation attempt not allowed") || !strings.Contains(n, "secrets:post") {
					t.Errorf("notes %q", n)
				}
			}
		})
	}
}
