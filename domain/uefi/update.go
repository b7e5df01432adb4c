package uefi

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// CertAddition is one certificate AddMicrosoft2023 enrolled.
type CertAddition struct {
	Variable string // "KEK" or "db"
	Subject  string
	SHA256   string // hex
}

// CertSkip is a 2023 certificate AddMicrosoft2023 left out, and why.
type CertSkip struct {
	Variable string
	Subject  string
	Reason   string
}

// SecureBootUpdate says what AddMicrosoft2023 did.
type SecureBootUpdate struct {
	// Added is empty when nothing was missing: the file is returned
	// unchanged, byte for byte.
	Added []CertAddition
	// BytesBefore and BytesAfter are the bytes the store's records take
	// (deleted records included: they hold flash until the firmware
	// reclaims it), StoreSize the room there is for records (the store's
	// size less its 28-byte header): StoreSize-BytesAfter is what is left.
	BytesBefore, BytesAfter int
	StoreSize               int
	// Skipped are the 2023 certificates missing from the store that are
	// not added, with why (Microsoft's servicing would not add them).
	Skipped []CertSkip
	// Compacted: the update did not fit after the last record, so the
	// store was rewritten with its live records only (as the firmware's
	// own reclaim does) and the new KEK and db after them.
	Compacted bool
}

var (
	// ErrNotAuthenticatedStore: the file is not an authenticated variable
	// store (a plain one, or no variable store at all: then the error is
	// also an *UnreadableStoreError carrying the reader's).
	ErrNotAuthenticatedStore = errors.New("not an authenticated variable store")
	// ErrSetupMode: no PK, so no Secure Boot keys to add to.
	ErrSetupMode = errors.New("no PK enrolled (setup mode): no Secure Boot keys to add to")
)

// UnreadableStoreError is a file that is no OVMF variable file: Err is
// the reader's error. It is also ErrNotAuthenticatedStore (errors.Is),
// and errors.As tells it from a readable plain store.
type UnreadableStoreError struct{ Err error }

func (e *UnreadableStoreError) Error() string        { return "not an OVMF variable file: " + e.Err.Error() }
func (e *UnreadableStoreError) Unwrap() error        { return e.Err }
func (e *UnreadableStoreError) Is(target error) bool { return target == ErrNotAuthenticatedStore }

// UnsettledStoreError: the firmware would change the store by itself at
// the guest's next boot (a reclaim, an unfinished fault-tolerant write)
// or it holds a record in a state edk2 never writes. A store written now
// would be undone or lost then; Boot says whether one boot of the guest
// settles it (the firmware's own repair), after which the update can be
// run again.
type UnsettledStoreError struct {
	Reason string
	Boot   bool
}

func (e *UnsettledStoreError) Error() string {
	if e.Boot {
		return e.Reason + "; one boot of the guest lets the firmware repair it, then run the update again"
	}
	return e.Reason
}

// NoRoomError: the new KEK and db need Need bytes of records, and even
// with the store compacted only Free are left for them. Returned as a
// pointer: errors.As into a *NoRoomError.
type NoRoomError struct{ Need, Free int }

func (e *NoRoomError) Error() string {
	return fmt.Sprintf("the variable store has no room for the 2023 certificates: %d bytes needed, %d free even after compaction", e.Need, e.Free)
}

// VariableTooLargeError: the new value of Variable (Size bytes of data)
// would pass the firmware's limit for one authenticated variable (Limit
// bytes of data, from PcdMaxAuthVariableSize less the record header and
// name), past which edk2 refuses to append to it (Windows' db and KEK
// updates append).
type VariableTooLargeError struct {
	Variable    string
	Size, Limit int
}

func (e *VariableTooLargeError) Error() string {
	return fmt.Sprintf("%s would hold %d bytes, more than the %d the firmware allows one authenticated variable", e.Variable, e.Size, e.Limit)
}

// timeBasedAuth: EFI_VARIABLE_TIME_BASED_AUTHENTICATED_WRITE_ACCESS;
// sbAttributes: NV|BS|RT|that, which every OVMF template's KEK and db carry.
const (
	timeBasedAuth = 0x20
	sbAttributes  = 0x27
)

// AddMicrosoft2023 returns a copy of an OVMF variable file whose KEK and
// db also hold the 2023 certificates they lack, keeping every entry
// already there: PK, dbx and every other variable keep their values byte
// for byte. A certificate counts as there by its SHA-256, whoever owns it.
//
// Each new value is the old one's signature lists followed by one X.509
// list per missing certificate, owned by Microsoft's GUID, with the old
// attributes (NV|BS|RT|time-based authenticated for a variable created
// here) and the later of the old timestamp and now (in UTC, to the
// second), as a firmware append write keeps the later of the two: edk2
// refuses a later non-append authenticated write whose timestamp is not
// after the stored one, so the stored one must never move back.
// (virt-fw-vars keeps the later of the old one and the newest
// certificate's NotBefore instead; the entries are the same.)
//
// The file is written as the firmware writes it: the old record marked
// deleted, the new one appended in the erased space after the last record
// (no other byte of the file changes, and the guest's firmware reclaims
// the space itself when it needs it). Only when that space is too small
// is the store compacted (live records kept in order, deleted ones
// dropped), as edk2's reclaim does; virt-fw-vars always rebuilds the store
// that way, losing any record in transition. A new value past the
// firmware's size limit for one variable is refused
// (*VariableTooLargeError), as is a store without room (*NoRoomError).
// The result is read back and checked before it is returned; a check
// that fails is an error. now is the caller's, so that a run is
// reproducible.
func AddMicrosoft2023(file []byte, now time.Time) ([]byte, SecureBootUpdate, error) {
	var up SecureBootUpdate
	s, err := ReadVarStore(file)
	if err != nil {
		return nil, up, &UnreadableStoreError{Err: err}
	}
	if !s.Authenticated {
		return nil, up, ErrNotAuthenticatedStore
	}
	l, err := layout(file, s)
	if err != nil {
		return nil, up, err
	}
	if err := sameAsFirmware(file, s, l); err != nil {
		return nil, up, err
	}
	up.StoreSize, up.BytesBefore = l.size-storeHdrLen, l.end-storeHdrLen
	up.BytesAfter = up.BytesBefore
	sb, err := s.SecureBoot()
	if err != nil {
		return nil, up, fmt.Errorf("reading the Secure Boot variables: %w", err)
	}
	if sb.PK.Entries() == 0 {
		return nil, up, ErrSetupMode
	}
	p, err := plan(s, sb, now)
	if err != nil {
		return nil, up, err
	}
	up.Skipped = p.skipped
	if len(p.added) == 0 {
		return bytes.Clone(file), up, nil
	}
	if err := p.checkSizes(len(file)); err != nil {
		return nil, up, err
	}
	out, end, compacted, err := l.write(file, p)
	if err != nil {
		return nil, up, err
	}
	if err := verify(file, out, l, s, sb, p); err != nil {
		return nil, up, fmt.Errorf("the updated store failed its check, nothing written: %w", err)
	}
	if err := CheckAsFirmware(file, out, p.added); err != nil {
		return nil, up, fmt.Errorf("the updated store failed the firmware's walk, nothing written: %w", err)
	}
	up.Added, up.BytesAfter, up.Compacted = p.added, end-storeHdrLen, compacted
	return out, up, nil
}

// update is the plan: the new KEK and/or db, and what they gain.
type update struct {
	vars    []Variable // the new values, KEK before db
	old     []*Variable
	certs   [][]MS2023Cert // per var: the certificates appended
	added   []CertAddition
	skipped []CertSkip
}

// The 2011 certificates whose successors Microsoft's servicing adds.
const (
	windowsPCA2011 = "Microsoft Windows Production PCA 2011"
	uefiCA2011     = "Microsoft Corporation UEFI CA 2011"
)

// servicingLeavesOut says why Microsoft's own Secure Boot servicing would
// not add c to a store whose db is db, or "" when it would: the 2023 KEK
// always; Windows UEFI CA 2023 where db trusts Windows Production PCA
// 2011; Microsoft UEFI CA 2023 and the Option ROM UEFI CA 2023 only
// where db trusts the third-party Microsoft UEFI CA 2011 (a Windows-only
// store, Secured-core style, must not start trusting every third-party
// loader).
func servicingLeavesOut(c MS2023Cert, db *SignatureDB) string {
	switch c.Subject {
	case "Windows UEFI CA 2023":
		if !db.Has(windowsPCA2011) {
			return "db does not trust " + windowsPCA2011 + ", which it succeeds"
		}
	case "Microsoft UEFI CA 2023", "Microsoft Option ROM UEFI CA 2023":
		if !db.Has(uefiCA2011) {
			return "db does not trust the third-party " + uefiCA2011 + ": Microsoft's servicing adds its successors only where it does"
		}
	}
	return ""
}

func plan(s *VarStore, sb *SecureBoot, now time.Time) (*update, error) {
	stamp, err := efiTime(now)
	if err != nil {
		return nil, err
	}
	p := &update{}
	all := Microsoft2023()
	for _, t := range []struct {
		name   string
		vendor GUID
		db     *SignatureDB
	}{{"KEK", GlobalVariable, sb.KEK}, {"db", ImageSecurityDatabase, sb.DB}} {
		have := map[Digest]bool{}
		if t.db != nil {
			for _, c := range t.db.Certificates {
				have[c.SHA256] = true
			}
		}
		var missing []MS2023Cert
		for _, c := range all {
			if c.Variable != t.name || have[c.digest()] {
				continue
			}
			if why := servicingLeavesOut(c, sb.DB); why != "" {
				p.skipped = append(p.skipped, CertSkip{Variable: c.Variable, Subject: c.Subject, Reason: why})
				continue
			}
			missing = append(missing, c)
		}
		if len(missing) == 0 {
			continue
		}
		if n := liveCopies(s, t.name, t.vendor); n > 1 {
			return nil, fmt.Errorf("%s: %d live records in the store: which one the firmware uses is unclear, not written", t.name, n)
		}
		nv := Variable{Name: t.name, Vendor: t.vendor, Attributes: sbAttributes}
		old, _ := s.Get(t.name, t.vendor) // nil when absent: created
		if old != nil {
			nv = Variable{Name: old.Name, Vendor: old.Vendor, Attributes: old.Attributes, MonotonicCount: old.MonotonicCount,
				TimeStamp: old.TimeStamp, PubKeyIndex: old.PubKeyIndex, Data: bytes.Clone(old.Data)}
		}
		if nv.Attributes&timeBasedAuth != 0 && later(stamp, nv.TimeStamp) {
			nv.TimeStamp = stamp
		}
		for _, c := range missing {
			nv.Data = append(nv.Data, SignatureList(CertX509GUID, MicrosoftOwner, c.DER)...)
			p.added = append(p.added, CertAddition{Variable: t.name, Subject: c.Subject, SHA256: c.SHA256})
		}
		p.vars, p.old, p.certs = append(p.vars, nv), append(p.old, old), append(p.certs, missing)
	}
	return p, nil
}

// sameAsFirmware refuses a store the firmware would change by itself at
// the next boot, and holds the reader's walk to the firmware's: the same
// end of records, the same values in the same order.
func sameAsFirmware(file []byte, s *VarStore, l *storeLayout) error {
	fw, err := ViewAsFirmware(file)
	if err != nil {
		return fmt.Errorf("the firmware would not read this store: %w", err)
	}
	if ok, why := fw.Settled(); !ok {
		return &UnsettledStoreError{Reason: why, Boot: fw.PendingWrite || fw.ReclaimAtBoot}
	}
	if end := l.base + l.end; end != fw.LastVariable || uint64(l.end) != s.end {
		return fmt.Errorf("the firmware's walk of the records ends at offset %d, this reader's at %d: not written", fw.LastVariable, end)
	}
	for _, v := range s.Variables {
		f, ok := fw.Value(v.Name, v.Vendor)
		if !ok || f.AddedCopies <= 1 && !bytes.Equal(f.Data, v.Data) { // several copies: plan names them
			return fmt.Errorf("the firmware reads %s (%s) differently: not written", v.Name, v.Vendor)
		}
	}
	if len(fw.Values) > len(s.Variables) {
		return fmt.Errorf("the firmware finds %d variables, this reader %d: not written", len(fw.Values), len(s.Variables))
	}
	return nil
}

func liveCopies(s *VarStore, name string, vendor GUID) int {
	n := 0
	for _, v := range s.Variables {
		if v.Name == name && v.Vendor == vendor {
			n++
		}
	}
	return n
}

// checkSizes holds each new value to edk2's PcdMaxAuthVariableSize for
// the firmware the file is for: 0x8400 for OVMF's 4 MiB build (whose
// variable files are 540672 bytes), 0x2800 for the others (OVMF's 1 and
// 2 MiB builds, ArmVirtQemu's AAVMF). The limit covers the record header,
// the name and the data.
func (p *update) checkSizes(fileSize int) error {
	max := 0x2800
	if fileSize == 540672 {
		max = 0x8400
	}
	for _, v := range p.vars {
		limit := max - authHdrLen - len(encodeName(v.Name))
		if len(v.Data) > limit {
			return &VariableTooLargeError{Variable: v.Name, Size: len(v.Data), Limit: limit}
		}
	}
	return nil
}

// efiTime is now as an EFI_TIME in UTC, to the second: nanosecond, time
// zone and daylight zero, as UEFI asks of an authenticated variable's
// timestamp.
func efiTime(now time.Time) ([16]byte, error) {
	var b [16]byte
	t := now.UTC()
	if t.Year() < 1900 || t.Year() > 9999 {
		return b, fmt.Errorf("time %s is outside EFI_TIME's years 1900 to 9999", t)
	}
	binary.LittleEndian.PutUint16(b[0:], uint16(t.Year()))
	b[2], b[3], b[4], b[5], b[6] = byte(t.Month()), byte(t.Day()), byte(t.Hour()), byte(t.Minute()), byte(t.Second())
	return b, nil
}

// later says whether EFI_TIME a is after b, compared as edk2 compares
// them: year, month, day, hour, minute, second, nanosecond.
func later(a, b [16]byte) bool {
	le := binary.LittleEndian
	if ya, yb := le.Uint16(a[0:]), le.Uint16(b[0:]); ya != yb {
		return ya > yb
	}
	for i := 2; i <= 6; i++ {
		if a[i] != b[i] {
			return a[i] > b[i]
		}
	}
	return le.Uint32(a[8:]) > le.Uint32(b[8:])
}
