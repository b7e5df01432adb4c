package secureboot

import (
	"errors"
	"fmt"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/uefi"
)

// Refusal is why update leaves a file untouched, typed: the caller
// decides its exit status on it, never on the words.
type Refusal string

const (
	RefuseRunning          Refusal = "running"      // the domain has a QEMU process (running, paused, in shutdown, …)
	RefuseManagedSave      Refusal = "managed-save" // a saved state waits: its restore would write the old flash back
	RefuseStateUnknown     Refusal = "state-unknown"
	RefuseNovaRecreates    Refusal = "nova-recreates-nvram" // the next start would recreate the file from the template
	RefuseNovaUnknown      Refusal = "nova-nvram-unknown"
	RefuseNoNVRAM          Refusal = "no-nvram"
	RefuseUnreadable       Refusal = "unreadable" // missing, not a regular file, too large
	RefuseInUse            Refusal = "in-use"     // another process holds a lock on the file (QEMU does)
	RefuseNotAuthenticated Refusal = "not-authenticated-store"
	RefuseNoRoom           Refusal = "no-room"
	RefuseSetupMode        Refusal = "setup-mode"
	RefuseSiteKeys         Refusal = "site-keys"         // no Microsoft certificate at all: the site's own keys
	RefuseUnsupported      Refusal = "unsupported-store" // readable, but not safely writable (two live KEKs, …)
	// RefuseUnsettled: the firmware would change the store by itself at
	// the next boot (reclaim, an unfinished fault-tolerant write), or a
	// record is in a state edk2 never writes.
	RefuseUnsettled Refusal = "firmware-would-repair"
)

type refusal struct {
	kind   Refusal
	detail string
}

// refusalOf words what uefi.AddMicrosoft2023 refused.
func refusalOf(err error) *refusal {
	var room *uefi.NoRoomError
	var big *uefi.VariableTooLargeError
	var unreadable *uefi.UnreadableStoreError
	var unsettled *uefi.UnsettledStoreError
	switch {
	case errors.As(err, &unsettled):
		return &refusal{RefuseUnsettled, unsettled.Error()}
	case errors.As(err, &room):
		return &refusal{RefuseNoRoom, fmt.Sprintf("the variable store has %d bytes free (even compacted), the 2023 certificates need %d", room.Free, room.Need)}
	case errors.As(err, &big):
		return &refusal{RefuseNoRoom, fmt.Sprintf("%s would hold %d bytes, more than the %d the firmware allows one authenticated variable", big.Variable, big.Size, big.Limit)}
	case errors.Is(err, uefi.ErrSetupMode):
		return &refusal{RefuseSetupMode, "no PK (setup mode): Secure Boot is off in this store, and certificates are not added to one without a platform key"}
	case errors.As(err, &unreadable):
		return &refusal{RefuseNotAuthenticated, "not an OVMF variable file: " + unreadable.Err.Error()}
	case errors.Is(err, uefi.ErrNotAuthenticatedStore):
		return &refusal{RefuseNotAuthenticated, "not an authenticated variable store (a firmware build without Secure Boot)"}
	}
	return &refusal{RefuseUnsupported, "the store cannot be updated safely: " + err.Error()}
}

// RefusedError: at least one selected file is refused; nothing was
// written. Files are the refused ones.
type RefusedError struct{ Files []FileUpdate }

func (e *RefusedError) Error() string {
	f := e.Files[0]
	s := f.Name() + ": " + f.Detail
	if len(e.Files) > 1 {
		s += fmt.Sprintf(" (and %d more refused)", len(e.Files)-1)
	}
	return s + "; nothing was written"
}

// NotFoundError: servers asked for that are no domain of this host.
type NotFoundError struct {
	UUIDs []string
	Host  string
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no domain with UUID %s on this host (%s): a server's NVRAM is written on its own compute host", strings.Join(e.UUIDs, ", "), e.Host)
}

// HostError: the host's configuration could not be read (hostcheck's
// typed errors inside: a layout, a release, nova.conf): the caller
// words it as host check's.
type HostError struct{ Err error }

func (e *HostError) Error() string { return e.Err.Error() }
func (e *HostError) Unwrap() error { return e.Err }

// FailedError: a write, or its verification, failed; Files are the
// failed ones, each saying what was left where.
type FailedError struct{ Files []FileUpdate }

func (e *FailedError) Error() string {
	f := e.Files[0]
	s := f.Name() + ": " + f.Detail
	if len(e.Files) > 1 {
		s += fmt.Sprintf(" (and %d more failed)", len(e.Files)-1)
	}
	return s
}
