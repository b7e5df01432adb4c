// Command testsummary reads `go test -json` on stdin, prints the tests'
// own output as go test would, and closes with one line CI can read:
// "tests: N passed, N failed, N skipped" (plus the tests that do not apply
// to the cloud's release, counted apart). It exits 1 when a test or a
// package failed, so a skipped or broken package cannot pass unseen.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

func main() {
	var passed, failed, skipped, notApplicable, pkgFailed int
	// A test that does not apply to the cloud's release says so in its
	// skip message; it is counted apart, never as passed.
	naTests := map[string]bool{}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			fmt.Println(sc.Text()) // build errors arrive as plain text
			continue
		}
		switch e.Action {
		case "output":
			fmt.Print(e.Output)
			if strings.Contains(e.Output, "not for this release: ") {
				naTests[e.Package+" "+e.Test] = true
			}
		case "pass":
			if e.Test != "" {
				passed++
			}
		case "fail":
			if e.Test != "" {
				failed++
			} else {
				pkgFailed++
			}
		case "skip":
			switch {
			case e.Test == "":
			case naTests[e.Package+" "+e.Test]:
				notApplicable++
			default:
				skipped++
			}
		}
	}
	line := fmt.Sprintf("tests: %d passed, %d failed, %d skipped", passed, failed+pkgFailed, skipped)
	if notApplicable > 0 {
		line += fmt.Sprintf(" (and %d not applicable to this release)", notApplicable)
	}
	fmt.Println(line)
	if failed+pkgFailed > 0 || passed == 0 {
		os.Exit(1)
	}
}
