// Package check answers what Nova will do before anyone asks it: the
// service behind `vtpmctl check` (an image or boot volume with a flavor,
// read from the cloud or given offline) and its document, Report. The
// rules are domain/nova's, pure; this package reads the objects they are
// applied to.
package check
