package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/nova"
)

// Exit statuses, the same for every command.
const (
	exitOK      = 0
	exitFailed  = 1 // a check failed or an operation did not complete
	exitUsage   = 2 // bad flags, bad input files, no or unknown cloud
	exitHelpTag = "EXIT STATUS"
)

// usageError is the user's mistake: wrong flag, value or file.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// reportedError ends the command with a status after the command has
// already printed everything the user needs (e.g. a refused check).
type reportedError struct {
	code int
	msg  string // one line for stderr; empty when nothing more to say
}

func (e *reportedError) Error() string { return e.msg }

// exitCode turns any error into the one line the user sees and the exit
// status. This is the only place that decides either.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	var rep *reportedError
	if errors.As(err, &rep) {
		if rep.msg != "" {
			fmt.Fprintln(stderr, "vtpmctl: "+errorLine(rep.msg))
		}
		return rep.code
	}
	code := exitFailed
	var ue *usageError
	var ce *cloud.ConfigError
	var col *output.ColumnError
	var nf *nova.NotFoundError
	var amb *nova.AmbiguousError
	var req *nova.RequestError
	switch {
	case errors.As(err, &ue), errors.As(err, &ce), errors.As(err, &col), errors.As(err, &nf), errors.As(err, &amb), errors.As(err, &req):
		code = exitUsage
	}
	fmt.Fprintln(stderr, "vtpmctl: "+errorLine(err.Error()))
	return code
}

// errorLine is what an error may show: one line, no credential (a server
// may echo the password), no control character (a name may carry escape
// sequences).
func errorLine(s string) string { return output.Sanitize(cloud.Scrub(oneLine(s))) }

// oneLine keeps the promise of one line per error, whatever a server put
// in a response body.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
