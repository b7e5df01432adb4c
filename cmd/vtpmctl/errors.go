package main

import (
	"context"
	"net"
	"net/url"

	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/app/flavor"
	"github.com/vtpmctl/vtpmctl/app/plan"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/output"
)

// Exit statuses, the same for every command.
const (
	exitOK      = 0
	exitFailed  = 1 // a check failed or an operation did not complete
	exitUsage   = 2 // bad flags, bad input files, no or unknown cloud
	exitHelpTag = "EXIT STATUS"
)

// usageError is the user's mistake: wrong flag, value or file. It keeps
// the error it wraps (%w), so exitCode can still see a network failure
// under it.
type usageError struct {
	msg string
	err error
}

func (e *usageError) Error() string { return e.msg }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	e := fmt.Errorf(format, args...)
	return &usageError{msg: e.Error(), err: errors.Unwrap(e)}
}

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
	var in *interruptedError
	if errors.As(err, &in) {
		fmt.Fprintln(stderr, "vtpmctl: "+errorLine(in.line()))
		return in.in.exitCode()
	}
	var rep *reportedError
	if errors.As(err, &rep) {
		if rep.msg != "" {
			fmt.Fprintln(stderr, "vtpmctl: "+errorLine(rep.msg))
		}
		return rep.code
	}
	code := exitFailed
	// A field nova refused that no caller named is spelled with the CLI's
	// flags (image and volume set have them); commands with other words
	// (plan apply: the plan's keys) map it first, into a usageError.
	var named *usageError
	if !errors.As(err, &named) {
		err = inWords(err, flagName)
	}
	err = cloudInWords(err)
	if isOperational(err) {
		fmt.Fprintln(stderr, "vtpmctl: "+errorLine(message(err)))
		return exitFailed
	}
	var ue *usageError
	var ce *cloud.ConfigError
	var col *output.ColumnError
	var nf *nova.NotFoundError
	var amb *nova.AmbiguousError
	var req *nova.RequestError
	var pe *plan.PlanError
	var fe *output.FormatError
	var size *flavor.SizeError // docs/output.md exit status 2: a bad value, nothing written
	var field *nova.FieldError
	switch {
	case errors.As(err, &ue), errors.As(err, &ce), errors.As(err, &col), errors.As(err, &nf), errors.As(err, &amb), errors.As(err, &req), errors.As(err, &pe), errors.As(err, &fe), errors.As(err, &size), errors.As(err, &field):
		code = exitUsage
	}
	fmt.Fprintln(stderr, "vtpmctl: "+errorLine(message(err)))
	return code
}

// message is err's text with every refused API request in it said as
// one line (cloud.ErrorText).
func message(err error) string { return cloud.ErrorText(err) }

// errorLine is what an error may show: one line, no credential (a server
// may echo the password), no control character (a name may carry escape
// sequences).
func errorLine(s string) string { return output.Sanitize(cloud.Scrub(oneLine(s))) }

// isOperational: the cloud or the network failed (a 5xx, a timeout, a
// refused connection, an interrupt). That is never the user's usage
// mistake, whatever wraps it.
func isOperational(err error) bool {
	var code gophercloud.ErrUnexpectedResponseCode
	if errors.As(err, &code) && code.Actual >= 500 {
		return true
	}
	var ne net.Error
	var ue *url.Error
	return errors.As(err, &ne) || errors.As(err, &ue) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

// oneLine keeps the promise of one line per error, whatever a server put
// in a response body. Its lines are joined with "; ": errors.Join puts a
// newline between the errors it joins, and as a bare space two messages
// ran together as one sentence.
func oneLine(s string) string {
	var parts []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "; ")
}

// flagNames are the flags the image, flavor and plan import commands
// spell nova's request fields with.
var flagNames = map[nova.Field]string{
	nova.FieldTPMVersion:     "--tpm-version",
	nova.FieldTPMModel:       "--tpm-model",
	nova.FieldSecretSecurity: "--secret-security",
	nova.FieldWindows:        "--windows",
	nova.FieldRelease:        "--nova-release",
	nova.FieldFromRelease:    "--from",
}

func flagName(f nova.Field) string {
	if n, ok := flagNames[f]; ok {
		return n
	}
	return string(f)
}

// planKey is a field as a plan file spells it (its keys are nova's field
// names: tpm_version, secret_security).
func planKey(f nova.Field) string { return string(f) }

// inWords turns a nova.FieldError anywhere in err's chain into a usage
// error spelled with name(field), the caller's flag or plan key; the
// context wrapped around it stays. Other errors pass unchanged.
func inWords(err error, name func(nova.Field) string) error {
	var fe fieldWorded
	if !errors.As(err, &fe) {
		return err
	}
	return &usageError{msg: strings.Replace(err.Error(), fe.Error(), fieldMessage(fe, name), 1), err: err}
}

// fieldMessage is fe in the caller's words; a value that is none of
// Nova's choices names the one close to it, if one is.
func fieldMessage(fe fieldWorded, name func(nova.Field) string) string {
	var f *nova.FieldError
	if errors.As(fe, &f) && len(f.Choices) > 0 {
		if s := suggest(strings.ToLower(f.Value), f.Choices); s != "" {
			return fmt.Sprintf("invalid %s %q (did you mean %q?)", name(f.Field), f.Value, s)
		}
	}
	return fe.Message(name)
}

// fieldWorded is a nova error that names request fields
// (nova.FieldError, nova.ReleaseUnknownError): the CLI spells them.
type fieldWorded interface {
	error
	Message(name func(nova.Field) string) string
}

// cloudFlags are the global flags a cloud.Option is spelled with.
var cloudFlags = map[cloud.Option]string{
	cloud.OptionCloud:   "--os-cloud",
	cloud.OptionTimeout: "--timeout",
	cloud.OptionCACert:  "--os-cacert",
	cloud.OptionRegion:  "--os-region-name",
}

// cloudInWords spells a cloud.ConfigError anywhere in err's chain with
// the global flags; the context wrapped around it stays.
func cloudInWords(err error) error {
	var ce *cloud.ConfigError
	if !errors.As(err, &ce) || ce.Option == "" {
		return err
	}
	return &usageError{msg: strings.Replace(err.Error(), ce.Error(), ce.Message(func(o cloud.Option) string { return cloudFlags[o] }), 1), err: err}
}
