package uefi

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
)

// CheckAsFirmware holds a written store to what the firmware will make
// of it, with ViewAsFirmware's walk (none of the reader's or writer's
// code): the firmware keeps the store as it is at the next boot (no
// reclaim, no pending fault-tolerant write, no record in a state edk2
// never writes); no byte outside the store's records changed; every
// variable the firmware found before it finds after with the same value
// and attributes, but KEK and db where added names them; those it finds
// once as a VAR_ADDED record, their old value followed by one X.509
// signature list per added certificate, in order, owned by Microsoft,
// whose DER has the certificate's SHA-256. An error says what differs.
func CheckAsFirmware(before, after []byte, added []CertAddition) error {
	if len(before) != len(after) {
		return fmt.Errorf("the file is %d bytes, was %d", len(after), len(before))
	}
	was, err := ViewAsFirmware(before)
	if err != nil {
		return fmt.Errorf("the original, as the firmware reads it: %w", err)
	}
	is, err := ViewAsFirmware(after)
	if err != nil {
		return fmt.Errorf("as the firmware reads it: %w", err)
	}
	if ok, why := is.Settled(); !ok {
		return fmt.Errorf("the firmware would not keep it as written: %s", why)
	}
	recStart := int(binary.LittleEndian.Uint16(before[48:])) + fwStoreHeader
	if !bytes.Equal(before[:recStart], after[:recStart]) || !bytes.Equal(before[was.StoreEnd:], after[was.StoreEnd:]) {
		return fmt.Errorf("bytes outside the variable store's records changed")
	}
	gains := map[string][]CertAddition{}
	for _, a := range added {
		gains[a.Variable] = append(gains[a.Variable], a)
	}
	changed := func(f FirmwareValue) bool {
		return f.Name == "KEK" && f.Vendor == GlobalVariable && len(gains["KEK"]) > 0 ||
			f.Name == "db" && f.Vendor == ImageSecurityDatabase && len(gains["db"]) > 0
	}
	for _, o := range was.Values {
		n, ok := is.Value(o.Name, o.Vendor)
		switch {
		case !ok:
			return fmt.Errorf("the firmware no longer finds %s (%s)", o.Name, o.Vendor)
		case changed(o):
		case n.Attributes != o.Attributes || n.MonotonicCount != o.MonotonicCount || n.TimeStamp != o.TimeStamp ||
			n.PubKeyIndex != o.PubKeyIndex || !bytes.Equal(n.Data, o.Data):
			return fmt.Errorf("the firmware finds %s (%s) changed", o.Name, o.Vendor)
		}
	}
	for _, n := range is.Values {
		if _, ok := was.Value(n.Name, n.Vendor); !ok && !changed(n) {
			return fmt.Errorf("the firmware finds a new variable %s (%s)", n.Name, n.Vendor)
		}
	}
	for _, t := range []struct {
		name   string
		vendor GUID
	}{{"KEK", GlobalVariable}, {"db", ImageSecurityDatabase}} {
		certs := gains[t.name]
		if len(certs) == 0 {
			continue
		}
		n, ok := is.Value(t.name, t.vendor)
		if !ok {
			return fmt.Errorf("the firmware finds no %s", t.name)
		}
		if n.AddedCopies != 1 {
			return fmt.Errorf("the firmware finds %d VAR_ADDED copies of %s", n.AddedCopies, t.name)
		}
		var old []byte
		if o, ok := was.Value(t.name, t.vendor); ok {
			old = o.Data
			if n.Attributes != o.Attributes || n.PubKeyIndex != o.PubKeyIndex {
				return fmt.Errorf("%s's attributes changed", t.name)
			}
			if laterStamp(o.TimeStamp, n.TimeStamp) {
				return fmt.Errorf("%s's timestamp moved back", t.name)
			}
		}
		if !bytes.HasPrefix(n.Data, old) {
			return fmt.Errorf("%s lost entries it held", t.name)
		}
		if err := appendedLists(n.Data[len(old):], certs); err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
	}
	return nil
}

// appendedLists checks that b is exactly one EFI_SIGNATURE_LIST of one
// X.509 entry owned by Microsoft per certificate, in order.
func appendedLists(b []byte, certs []CertAddition) error {
	le := binary.LittleEndian
	for _, c := range certs {
		if len(b) < 28+16 {
			return fmt.Errorf("%s: no signature list for it", c.Subject)
		}
		var typ, owner GUID
		copy(typ[:], b)
		listSize, hdrSize, sigSize := le.Uint32(b[16:]), le.Uint32(b[20:]), le.Uint32(b[24:])
		if typ != CertX509GUID || hdrSize != 0 || uint64(listSize) != 28+uint64(sigSize) || uint64(listSize) > uint64(len(b)) || sigSize < 16 {
			return fmt.Errorf("%s: not one X.509 signature list", c.Subject)
		}
		copy(owner[:], b[28:])
		sum := sha256.Sum256(b[44:listSize])
		if owner != MicrosoftOwner || hex.EncodeToString(sum[:]) != c.SHA256 {
			return fmt.Errorf("%s: the entry written is not the certificate (SHA-256 %x, owner %s)", c.Subject, sum, owner)
		}
		b = b[listSize:]
	}
	if len(b) != 0 {
		return fmt.Errorf("%d bytes after the added certificates", len(b))
	}
	return nil
}

// laterStamp: EFI_TIME a after b (year, month, day, hour, minute, second).
func laterStamp(a, b [16]byte) bool {
	ya, yb := binary.LittleEndian.Uint16(a[:]), binary.LittleEndian.Uint16(b[:])
	if ya != yb {
		return ya > yb
	}
	return bytes.Compare(a[2:7], b[2:7]) > 0
}
