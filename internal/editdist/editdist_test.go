package editdist

import "testing"

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"show", "show", 0}, {"shwo", "show", 1}, {"sho", "show", 1}, {"shows", "show", 1},
		{"hw_tpm_verion", "hw_tpm_version", 1}, {"tpm_version", "hw:tpm_version", 3},
		{"", "abc", 3}, {"stauts", "status", 1}, {"ä", "a", 1},
		{"", "", 0}, {"chek", "check", 1}, {"kitten", "sitting", 3}, {"häst", "hast", 1},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
