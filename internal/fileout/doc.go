// Package fileout writes a command's output file without ever replacing
// something that is not a regular file. Operators run vtpmctl as root and
// send output to /dev/null: renaming a temp file over it would turn the
// host's /dev/null into a regular file, and every non-root program that
// opens it (swtpm_setup among them) would fail.
//
// "-" is standard output; an existing device, FIFO or socket (also through
// a symlink such as /dev/stdout) is written in place; only a regular file
// or a new path gets the atomic treatment: a temp file created exclusively
// beside it, then renamed over it, and removed on any failure.
package fileout
