package uefi

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// firmware.go sees a variable file as edk2's variable driver does at
// boot, from edk2's own rules (MdeModulePkg VariableParsing.c:
// IsValidVariableHeader, NameSizeOfVariable, GetNextVariablePtr,
// FindVariableEx; Variable.c: VariableWriteServiceInitialize;
// FaultTolerantWriteDxe FtwMisc.c: FtwGetLastWriteHeader). It shares no
// code with the reader (varstore.go) or the writer (updatestore.go): it
// is the second pair of eyes a written store passes before it replaces
// a guest's file, and it tells which stores the firmware would change by
// itself at the next boot. Offsets here are the file's.

// edk2's own constants, spelt again so that nothing here leans on the
// reader's.
const (
	fwVariableData   = 0x55AA // VARIABLE_DATA, a header's StartId
	fwAdded          = 0x3F   // VAR_ADDED
	fwInDeletedTrans = 0xFE   // VAR_IN_DELETED_TRANSITION (a mask)
	fwDeleted        = 0xFD   // VAR_DELETED (a mask)
	fwHeaderValid    = 0x7F   // VAR_HEADER_VALID_ONLY
	fwFormatted      = 0x5A   // VARIABLE_STORE_FORMATTED
	fwHealthy        = 0xFE   // VARIABLE_STORE_HEALTHY
	fwAuthHeader     = 60     // sizeof (AUTHENTICATED_VARIABLE_HEADER)
	fwPlainHeader    = 32     // sizeof (VARIABLE_HEADER)
	fwStoreHeader    = 28     // sizeof (VARIABLE_STORE_HEADER)
	fwFtwHeader      = 32     // sizeof (EFI_FAULT_TOLERANT_WORKING_BLOCK_HEADER)
	fwFtwWrite       = 40     // sizeof (EFI_FAULT_TOLERANT_WRITE_HEADER)
	fwFtwRecord      = 40     // sizeof (EFI_FAULT_TOLERANT_WRITE_RECORD)
)

// fwWorkingBlockGUID is gEdkiiWorkingBlockSignatureGuid.
var fwWorkingBlockGUID = MustGUID("9e58292b-7c68-497d-a0ce-6500fd9f1b95")

// fwKnownState: the states edk2's variable driver leaves a record in:
// VAR_ADDED, in deleted transition, deleted from either, a header whose
// data was still being written, and a header whose State was not yet
// written (0xFF, walked as a header alone).
func fwKnownState(s byte) bool {
	switch s {
	case fwAdded, fwAdded & fwInDeletedTrans, fwAdded & fwDeleted, fwAdded & fwInDeletedTrans & fwDeleted, fwHeaderValid, 0xFF:
		return true
	}
	return false
}

// FirmwareValue is the record FindVariableEx returns for a name.
type FirmwareValue struct {
	Name           string
	Vendor         GUID
	Attributes     uint32
	MonotonicCount uint64
	TimeStamp      [16]byte
	PubKeyIndex    uint32
	Data           []byte
	Offset         int // the record's, in the file
	AddedCopies    int // VAR_ADDED records of the name: more than one is ambiguous to a writer
}

// OddRecord is a record in a state edk2 never writes.
type OddRecord struct {
	Offset int
	State  byte
}

// FirmwareView is a variable file as the firmware will find it.
type FirmwareView struct {
	// LastVariable is the file offset where the firmware's walk of the
	// records ends (NonVolatileLastVariableOffset): where it appends.
	LastVariable int
	// StoreEnd is the file offset of the variable store's end.
	StoreEnd int
	// ReclaimAtBoot: a byte between LastVariable and StoreEnd is not
	// erased flash, so VariableWriteServiceInitialize reclaims the store
	// at the next boot (keeping only what its walk reaches). FirstDirty
	// is that byte's offset.
	ReclaimAtBoot bool
	FirstDirty    int
	// Odd lists the records in a state edk2 never writes.
	Odd []OddRecord
	// BadNames are the offsets of live records whose name is not one
	// NUL-terminated UTF-16 string. edk2 always writes names so; it
	// compares a record's NameSize bytes with the name looked up, so
	// such a record answers for a name it only begins (a record "K"
	// for "KEK"), and no reader can say which value the firmware uses.
	BadNames []int
	// PendingWrite: the fault-tolerant-write working block holds a write
	// that did not complete; the firmware finishes or undoes it at boot,
	// overwriting the store from its spare copy. PendingAt is the write
	// header's offset.
	PendingWrite bool
	PendingAt    int
	// Values are the variables' values, in the order their records lie.
	Values []FirmwareValue
}

// Value is the firmware's value of name.
func (v *FirmwareView) Value(name string, vendor GUID) (*FirmwareValue, bool) {
	for i := range v.Values {
		if v.Values[i].Name == name && v.Values[i].Vendor == vendor {
			return &v.Values[i], true
		}
	}
	return nil, false
}

// Settled says whether the firmware will leave the store as it is at the
// next boot, and if not, why, in a sentence.
func (v *FirmwareView) Settled() (bool, string) {
	switch {
	case v.PendingWrite:
		return false, fmt.Sprintf("its fault-tolerant-write area holds an unfinished write (header at offset %d), which the firmware completes or undoes at the next boot, overwriting the variable store", v.PendingAt)
	case v.ReclaimAtBoot:
		return false, fmt.Sprintf("the firmware's walk of the records ends at offset %d, but offset %d after it is not erased flash: the firmware reclaims the store at the next boot, dropping whatever its walk did not reach", v.LastVariable, v.FirstDirty)
	case len(v.BadNames) > 0:
		return false, fmt.Sprintf("the variable at offset %d has a name that is not one NUL-terminated UTF-16 string, which the firmware may match against another name (%d such record(s))", v.BadNames[0], len(v.BadNames))
	case len(v.Odd) > 0:
		return false, fmt.Sprintf("the record at offset %d is in state %#02x, which edk2 never writes (%d such record(s))", v.Odd[0].Offset, v.Odd[0].State, len(v.Odd))
	}
	return true, ""
}

// ViewAsFirmware walks a variable file as the firmware does. A file the
// firmware would not use as a variable store, or whose records it would
// read past the store's end, is an error.
func ViewAsFirmware(file []byte) (*FirmwareView, error) {
	u16 := func(at int) int { return int(binary.LittleEndian.Uint16(file[at:])) }
	u32 := func(at int) uint32 { return binary.LittleEndian.Uint32(file[at:]) }
	if len(file) < 0x48 || string(file[40:44]) != "_FVH" {
		return nil, fmt.Errorf("no firmware volume header")
	}
	store := u16(48) // the volume's HeaderLength
	if store+fwStoreHeader > len(file) {
		return nil, fmt.Errorf("the variable store header at offset %d is past the file's end", store)
	}
	var sig GUID
	copy(sig[:], file[store:])
	header := fwPlainHeader
	switch sig {
	case AuthVariableGUID:
		header = fwAuthHeader
	case VariableGUID:
	default:
		return nil, fmt.Errorf("the firmware finds no variable store at offset %d (signature %s)", store, sig)
	}
	if file[store+20] != fwFormatted || file[store+21] != fwHealthy {
		return nil, fmt.Errorf("the variable store at offset %d is not formatted and healthy (%#02x, %#02x)", store, file[store+20], file[store+21])
	}
	size := int(u32(store + 16))
	end := (store + size + 3) &^ 3 // GetEndPointer
	if size < fwStoreHeader || end > len(file) {
		return nil, fmt.Errorf("the variable store's size %d runs past the file's end", size)
	}
	v := &FirmwareView{StoreEnd: store + size}
	firstAdded := map[string]int{} // name key → index in Values
	lastTrans := map[string]int{}  // name key → index in trans
	var trans []FirmwareValue
	p := (store + fwStoreHeader + 3) &^ 3 // GetStartPointer
	for p < end && p+2 <= len(file) && u16(p) == fwVariableData {
		if p+header > end {
			return nil, fmt.Errorf("the variable header at offset %d runs past the store's end", p)
		}
		state, attrs := file[p+2], u32(p+4)
		var nameSize, dataSize uint32
		var val FirmwareValue
		if header == fwAuthHeader {
			val.MonotonicCount = binary.LittleEndian.Uint64(file[p+8:])
			copy(val.TimeStamp[:], file[p+16:p+32])
			val.PubKeyIndex = u32(p + 32)
			nameSize, dataSize = u32(p+36), u32(p+40)
			copy(val.Vendor[:], file[p+44:p+60])
		} else {
			nameSize, dataSize = u32(p+8), u32(p+12)
			copy(val.Vendor[:], file[p+16:p+32])
		}
		if state == 0xFF || attrs == 0xFFFFFFFF || nameSize == 0xFFFFFFFF || dataSize == 0xFFFFFFFF {
			nameSize, dataSize = 0, 0 // NameSizeOfVariable, DataSizeOfVariable
		}
		next := p + header + int(nameSize) + int(dataSize)
		if uint64(p)+uint64(header)+uint64(nameSize)+uint64(dataSize) > uint64(end) {
			return nil, fmt.Errorf("the variable at offset %d (name %d, data %d bytes) runs past the store's end", p, nameSize, dataSize)
		}
		if !fwKnownState(state) {
			v.Odd = append(v.Odd, OddRecord{Offset: p, State: state})
		}
		if state == fwAdded || state == fwAdded&fwInDeletedTrans {
			raw := file[p+header : p+header+int(nameSize)]
			if !oneTerminatedName(raw) {
				v.BadNames = append(v.BadNames, p)
			}
			val.Name, val.Attributes, val.Offset = utf16z(raw), attrs, p
			val.Data = file[p+header+int(nameSize) : next]
			key := string(raw) + string(val.Vendor[:])
			if state == fwAdded {
				if i, ok := firstAdded[key]; ok {
					v.Values[i].AddedCopies++
				} else {
					val.AddedCopies = 1
					firstAdded[key] = len(v.Values)
					v.Values = append(v.Values, val)
				}
			} else {
				lastTrans[key] = len(trans)
				trans = append(trans, val)
			}
		}
		p = (next + 3) &^ 3 // HEADER_ALIGN
	}
	v.LastVariable = p
	// A value in transition counts only where no VAR_ADDED copy exists;
	// it takes its place in record order.
	for key, i := range lastTrans {
		if _, ok := firstAdded[key]; !ok {
			v.Values = append(v.Values, trans[i])
		}
	}
	sortByOffset(v.Values)
	for i := v.LastVariable; i < v.StoreEnd; i++ {
		if file[i] != 0xFF {
			v.ReclaimAtBoot, v.FirstDirty = true, i
			break
		}
	}
	v.PendingWrite, v.PendingAt = pendingFTW(file, (v.StoreEnd+0xFFF)&^0xFFF)
	return v, nil
}

// pendingFTW looks for the fault-tolerant-write working block in the
// file's 4 KiB blocks from `from` on (OVMF's lies one block after the
// variable store's region) and reports an allocated write header that
// is not complete: FtwGetLastWriteHeader's last header.
func pendingFTW(file []byte, from int) (bool, int) {
	for w := from; w+fwFtwHeader <= len(file); w += 0x1000 {
		var sig GUID
		copy(sig[:], file[w:])
		if sig != fwWorkingBlockGUID {
			continue
		}
		space := fwFtwHeader + int(min(binary.LittleEndian.Uint64(file[w+24:]), uint64(len(file)-w)))
		off := fwFtwHeader
		for w+off+fwFtwWrite <= len(file) {
			h := w + off
			flags := file[h] // bit 0 HeaderAllocated, bit 2 Complete; 0 is set (FTW_VALID_STATE)
			if flags&4 != 0 {
				return flags&1 == 0, h // the last header: pending when allocated
			}
			n, priv := binary.LittleEndian.Uint64(file[h+24:]), binary.LittleEndian.Uint64(file[h+32:])
			if n > uint64(space) || priv > uint64(space) {
				return false, 0 // no such write fits the space: the firmware's own walk aborts too
			}
			off += fwFtwWrite + int(n)*(fwFtwRecord+int(priv))
			if off+fwFtwWrite >= space {
				return false, 0
			}
		}
		return false, 0
	}
	return false, 0
}

func sortByOffset(vs []FirmwareValue) {
	slices.SortFunc(vs, func(a, b FirmwareValue) int { return a.Offset - b.Offset })
}

// oneTerminatedName: at least one UTF-16 unit, the last one NUL and no
// other.
func oneTerminatedName(raw []byte) bool {
	if len(raw) < 2 || len(raw)%2 != 0 {
		return false
	}
	for i := 0; i+1 < len(raw); i += 2 {
		if nul := raw[i] == 0 && raw[i+1] == 0; nul != (i == len(raw)-2) {
			return false
		}
	}
	return true
}

// utf16z decodes a UTF-16LE name up to its NUL, rune by rune.
func utf16z(b []byte) string {
	var r []rune
	for i := 0; i+1 < len(b); i += 2 {
		c := rune(binary.LittleEndian.Uint16(b[i:]))
		if c == 0 {
			break
		}
		if c >= 0xD800 && c < 0xDC00 && i+3 < len(b) {
			if d := rune(binary.LittleEndian.Uint16(b[i+2:])); d >= 0xDC00 && d < 0xE000 {
				r = append(r, 0x10000+(c-0xD800)<<10+(d-0xDC00))
				i += 2
				continue
			}
		}
		if c >= 0xD800 && c < 0xE000 {
			c = 0xFFFD
		}
		r = append(r, c)
	}
	return string(r)
}
