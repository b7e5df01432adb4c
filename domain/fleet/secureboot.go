package fleet

import (
	"fmt"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
)

// certsParts and remedyParts are the counts as the table's footer says
// them: every class and remedy, in the gauges' order, 0 included.
func certsParts(c *hostcheck.SecureBootCounts) string {
	parts := make([]string, 0, len(hostcheck.CertsClasses))
	for _, k := range hostcheck.CertsClasses {
		parts = append(parts, fmt.Sprintf("%d %s", c.ByCerts[k], k))
	}
	return strings.Join(parts, ", ")
}

func remedyParts(c *hostcheck.SecureBootCounts) string {
	parts := make([]string, 0, len(hostcheck.CertRemedies))
	for _, k := range hostcheck.CertRemedies {
		parts = append(parts, fmt.Sprintf("%d %s", c.ByRemedy[k], k))
	}
	return strings.Join(parts, ", ")
}

// summaryKey: the summary view's names are words joined by underscores
// (bitlocker_risk_high), so "no-keys" is no_keys there.
func summaryKey(s string) string { return strings.ReplaceAll(s, "-", "_") }
