// Package result is what every audit (host check, hosts audit, secrets
// audit, the HTML report) shares: the status of one check, and JUnit XML
// for CI systems.
package result
