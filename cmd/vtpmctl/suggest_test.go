package main

import "testing"

// suggest names one close candidate, or none: a far word ("frobnicate")
// gets no suggestion, where urfave/cli's Suggest named the nearest anyway.
func TestSuggest(t *testing.T) {
	commands := []string{"check", "image", "volume", "flavor", "host", "hosts", "secrets", "plan", "upgrade", "report", "help", "h", "completion"}
	flags := []string{"image", "image-property", "flavor", "flavor-spec", "nova-release", "os-cloud", "os-cacert", "timeout", "format", "f", "column", "c", "help", "h"}
	for _, tc := range []struct {
		typed      string
		candidates []string
		want       string
	}{
		{"chek", commands, "check"},
		{"shwo", []string{"set", "unset", "show", "list"}, "show"}, // a transposition is one edit
		{"imag", flags, "image"},
		{"os-clod", flags, "os-cloud"},
		{"tiemout", flags, "timeout"},
		{"secret", commands, "secrets"},
		{"flavor-specs", flags, "flavor-spec"},
		{"nova-rel", flags, "nova-release"}, // the only one it begins
		{"os-c", flags, ""},                 // begins two
		{"frobnicate", commands, ""},
		{"tcsh", []string{"bash", "zsh", "fish", "pwsh"}, ""},
		{"x", flags, ""},
		{"", commands, ""},
	} {
		if got := suggest(tc.typed, tc.candidates); got != tc.want {
			t.Errorf("suggest(%q) = %q, want %q", tc.typed, got, tc.want)
		}
	}
}
