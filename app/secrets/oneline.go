package secrets

import (
	"strings"

	"github.com/vtpmctl/vtpmctl/internal/cloud"
)

// oneLine is err on one line, as the user reads it (cloud.ErrorText: a
// refused request as method, service, path, status and its message): its
// lines (errors.Join's parts) joined with "; ", each line's runs of white
// space one space.
func oneLine(err error) string {
	var parts []string
	for _, l := range strings.Split(cloud.ErrorText(err), "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			parts = append(parts, strings.Join(f, " "))
		}
	}
	return strings.Join(parts, "; ")
}
