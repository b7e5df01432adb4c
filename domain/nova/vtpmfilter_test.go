package nova

import "testing"

func TestVTPMFilterKeep(t *testing.T) {
	for _, tc := range []struct {
		f         VTPMFilter
		with, not bool
	}{{AnyVTPM, true, true}, {WithVTPM, true, false}, {WithoutVTPM, false, true}} {
		if tc.f.Keep(true) != tc.with || tc.f.Keep(false) != tc.not {
			t.Errorf("%d: keeps vTPM %v, none %v", tc.f, tc.f.Keep(true), tc.f.Keep(false))
		}
	}
}
