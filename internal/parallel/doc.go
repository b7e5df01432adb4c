// Package parallel runs independent API calls with a bound, so a command
// over hundreds of objects neither crawls nor floods a service.
package parallel
