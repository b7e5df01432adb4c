// Command testsummary reads `go test -json` on stdin, prints the tests'
// own output as go test would, and closes with one line CI can read:
// "tests: N passed, N failed, N skipped". It exits 1 when a test or a
// package failed, so a skipped or broken package cannot pass unseen.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

func main() {
	var passed, failed, skipped, pkgFailed int
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
			if e.Test != "" {
				skipped++
			}
		}
	}
	fmt.Printf("tests: %d passed, %d failed, %d skipped\n", passed, failed+pkgFailed, skipped)
	if failed+pkgFailed > 0 || passed == 0 {
		os.Exit(1)
	}
}
