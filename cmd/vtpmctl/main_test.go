package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"vtpmctl": func() { os.Exit(process()) },
	})
}

// TestScripts runs the CLI scripts in testdata/script: offline checks,
// help texts, bad flags and exit statuses.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(e *testscript.Env) error {
			// No developer's cloud config may leak into the scripts.
			e.Setenv("HOME", e.WorkDir)
			e.Setenv("OS_CLOUD", "")
			e.Setenv("OS_AUTH_URL", "")
			e.Setenv("OS_CLIENT_CONFIG_FILE", "")
			ex, err := filepath.Abs("../../examples")
			e.Setenv("EX", ex)
			return err
		},
	})
}
