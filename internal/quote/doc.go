// Package quote makes text from other people (server, secret, project and
// VM names) safe for the place it is written to: a shell command, a shell
// comment, a spreadsheet cell, a markdown table. One function per target,
// so every generator uses the same rule.
package quote
