// Package predict answers what Nova will do before anyone asks it: the
// service behind `vtpmctl check` (an image or boot volume with a flavor,
// read from the cloud or given offline). The rules are nova's, pure; this
// package reads the objects they are applied to.
package predict
