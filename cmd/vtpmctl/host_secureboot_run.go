package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/vtpmctl/vtpmctl/app/secureboot"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/internal/output"
)

func runSecureBootStatus(ctx context.Context, o *secureBootStatusOptions) error {
	if o.NVRAM != "" && o.Host.Root != "" {
		return usagef("host secure-boot status: --nvram reads one file, --root a mounted host's guests: give one")
	}
	res, err := secureboot.Status(ctx, secureboot.StatusRequest{NVRAM: o.NVRAM, Host: o.Host.options(), Connect: o.Connect})
	if err != nil {
		return secureBootError(err)
	}
	return output.Write(o.IO.Out, o.Global.Output, secureBootStatusView{&res})
}

// bitLockerSteps is why --bitlocker-suspended is required, and what to do.
const bitLockerSteps = "host secure-boot update: KEK and db are measured into PCR 7, so a guest whose BitLocker is sealed to it asks for its recovery key at the next boot: " +
	"first, in each guest, suspend BitLocker (Suspend-BitLocker -MountPoint C: -RebootCount 0) or escrow its recovery key, then stop the guest " +
	"and pass --bitlocker-suspended (docs/secure-boot-2023.md; --dry-run needs none)"

var uuidForm = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func runSecureBootUpdate(ctx context.Context, o *secureBootUpdateOptions) error {
	chosen := 0
	for _, set := range []bool{len(o.Servers) > 0, o.AllStopped, o.NVRAM != ""} {
		if set {
			chosen++
		}
	}
	if chosen != 1 {
		return usagef("host secure-boot update: choose the files with one of --server UUID (repeatable), --all-stopped or --nvram FILE")
	}
	servers := make([]string, len(o.Servers))
	for i, s := range o.Servers {
		if servers[i] = strings.ToLower(strings.TrimSpace(s)); !uuidForm.MatchString(servers[i]) {
			return usagef("host secure-boot update: --server %q is no UUID: give the server's ID (openstack server show NAME -f value -c id), which is its libvirt domain's UUID", s)
		}
	}
	if !o.BitLockerSuspended && !o.DryRun {
		return usagef("%s", bitLockerSteps)
	}
	what := "every stopped guest of this host"
	switch {
	case len(servers) > 0:
		what = fmt.Sprintf("%d server(s)", len(servers))
	case o.NVRAM != "":
		what = shownName(o.NVRAM)
	}
	gate := writeGate{streams: o.IO, command: "host secure-boot update", bulk: true, yes: o.Yes, dryRun: o.DryRun,
		what: "add Microsoft's 2023 certificates to the NVRAM of " + what}
	if err := gate.check(); err != nil {
		return err
	}
	req := secureboot.UpdateRequest{Servers: servers, AllStopped: o.AllStopped, NVRAM: o.NVRAM, Host: o.Host.options(), DryRun: o.DryRun, Connect: o.Connect}
	if gate.needed() {
		req.Confirm = func(ctx context.Context, files []secureboot.FileUpdate) error {
			lines := make([]string, len(files))
			for i, f := range files {
				var adds []string
				for _, a := range f.Added {
					adds = append(adds, a.Variable+" "+a.Subject)
				}
				lines[i] = fmt.Sprintf("%s: add %s", f.Name(), strings.Join(adds, ", "))
			}
			return gate.ask(ctx, lines, fmt.Sprintf("write these %d NVRAM file(s), keeping a backup of each", len(files)))
		}
	}
	res, err := secureboot.Update(ctx, req)
	var refused *secureboot.RefusedError
	var failed *secureboot.FailedError
	switch {
	case err == nil, errors.As(err, &refused), errors.As(err, &failed):
		if werr := output.Write(o.IO.Out, o.Global.Output, secureBootUpdateView{&res}); werr != nil {
			var stopped *output.InterruptedError
			if errors.As(werr, &stopped) { // the run was interrupted: its one line says what was written
				return withWritesMade(werr, func() string { return nvramMade(res) })
			}
			return unshownUpdate(o.IO.Err, res, failed, werr)
		}
	default:
		return secureBootError(err)
	}
	switch {
	case refused != nil:
		msg := "host secure-boot update: refused: " + refused.Error()
		if refused.Files[0].Refusal == secureboot.RefuseNovaUnknown {
			msg += " (where nova-compute runs in a container: --layout, or --nova-root DIR)"
		}
		return &reportedError{code: exitUsage, msg: msg}
	case failed != nil:
		return &reportedError{code: exitFailed, msg: "host secure-boot update: failed: " + failed.Error()}
	}
	return nil
}

// unshownUpdate is an update whose output could not be written (stdout a
// closed pipe, -c naming no column): the output was the only account of
// what was written, so stderr names each file written, and where its
// original is kept, and each that failed, and the exit is 1 whatever the
// output's error was, never 2's "every file untouched". When no file was
// written and none failed (refused, a dry run, nothing to add) it is the
// output's error alone.
func unshownUpdate(stderr io.Writer, res secureboot.UpdateResult, failed *secureboot.FailedError, werr error) error {
	written := 0
	for _, f := range res.Files {
		switch f.Action {
		case secureboot.ActUpdated:
			written++
			fmt.Fprintln(stderr, "vtpmctl: "+errorLine("host secure-boot update: written: "+f.Name()+"; the original is kept at "+f.Backup))
		case secureboot.ActFailed:
			fmt.Fprintln(stderr, "vtpmctl: "+errorLine("host secure-boot update: failed: "+f.Name()+": "+f.Detail))
		}
	}
	if written == 0 && failed == nil {
		return werr
	}
	return &reportedError{code: exitFailed, msg: fmt.Sprintf("host secure-boot update: %d file(s) written, each named above, but the output could not be written: %v", written, werr)}
}

// nvramMade words, for an interruption's line, the NVRAM files the
// update replaced before the run stopped, and those it left untouched (a
// file is replaced whole or not at all) ("" for a dry run or no write).
func nvramMade(res secureboot.UpdateResult) string {
	if res.DryRun {
		return ""
	}
	var done, rest []string
	for _, f := range res.Files {
		switch f.Action {
		case secureboot.ActUpdated:
			done = append(done, f.Name())
		case secureboot.ActWouldUpdate, secureboot.ActFailed:
			rest = append(rest, f.Name())
		}
	}
	return madeList("NVRAM file(s) updated", done, rest, "untouched")
}

// secureBootError: the host's configuration is host check's usage
// error; a server not on this host is the user's; libvirt is a failure.
func secureBootError(err error) error {
	var he *secureboot.HostError
	var nf *secureboot.NotFoundError
	switch {
	case errors.As(err, &he):
		return hostCheckError(he.Err)
	case errors.As(err, &nf):
		return &usageError{msg: "host secure-boot update: " + nf.Error(), err: err}
	}
	return err
}

// secureBootStatusView is the status with the command lines that act
// on it under its table (the app's result knows no flag).
type secureBootStatusView struct{ *secureboot.StatusResult }

func (v secureBootStatusView) Table() output.Table {
	t := v.StatusResult.Table()
	// each remedy's words once (a template's are the host's), or where
	// they differ by guest, how to see them
	detail := map[hostcheck.CertRemedy]string{}
	for _, g := range v.Guests {
		if d, seen := detail[g.Remedy]; !seen {
			detail[g.Remedy] = g.Detail
		} else if d != g.Detail {
			detail[g.Remedy] = "each guest's own: -c domain -c remedy -c remedy_detail"
		}
	}
	for _, r := range secureboot.Remedies {
		if d, ok := detail[r]; ok && r != hostcheck.CertRemedyNone {
			t.Footer = append(t.Footer, string(r)+": "+d)
		}
	}
	var servers []string
	file := false
	for _, g := range v.Guests {
		switch {
		case g.Remedy != hostcheck.CertRemedyUpdateNVRAM:
		case g.UUID != "":
			servers = append(servers, g.UUID)
		default:
			file = true
		}
	}
	switch {
	case len(servers) > 0:
		t.Footer = append(t.Footer, "to update: suspend BitLocker in each guest, stop it, then vtpmctl host secure-boot update --bitlocker-suspended --server "+
			strings.Join(servers, " --server ")+" (docs/secure-boot-2023.md)")
	case file:
		t.Footer = append(t.Footer, "to update: vtpmctl host secure-boot update --bitlocker-suspended --nvram "+v.Source+" (docs/secure-boot-2023.md)")
	}
	return t
}

// secureBootUpdateView is the update with what comes next under its table.
type secureBootUpdateView struct{ *secureboot.UpdateResult }

func (v secureBootUpdateView) Table() output.Table {
	t := v.UpdateResult.Table()
	switch {
	case v.Summary.Updated > 0:
		t.Footer = append(t.Footer, "next: start each guest, check in Windows (Confirm-SecureBootUEFI; Get-SecureBootUEFI db), resume BitLocker (Resume-BitLocker -MountPoint C:); docs/secure-boot-2023.md")
	case v.Summary.WouldUpdate > 0 && v.DryRun:
		t.Footer = append(t.Footer, "dry run: nothing written; without --dry-run (and with --bitlocker-suspended) these files are written")
	case len(v.Files) > 0 && v.Summary.Unchanged+v.Summary.Skipped == len(v.Files):
		t.Footer = append(t.Footer, "nothing written: no selected file lacks a 2023 certificate")
	}
	return t
}
