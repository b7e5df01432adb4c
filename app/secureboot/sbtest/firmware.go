package sbtest

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/vtpmctl/vtpmctl/domain/uefi"
)

// WithRemnant returns store with an interrupted variable write after its
// last record, as a guest destroyed mid-write leaves it: a 60-byte
// header whose State is still 0xFF (edk2's first step done, not its
// second), NameSize 10 and DataSize 100, nothing after it.
func WithRemnant(store []byte) ([]byte, error) {
	fw, err := uefi.ViewAsFirmware(store)
	if err != nil {
		return nil, err
	}
	out := bytes.Clone(store)
	h := out[fw.LastVariable : fw.LastVariable+60]
	binary.LittleEndian.PutUint16(h, 0x55AA)
	h[2] = 0xFF
	binary.LittleEndian.PutUint32(h[4:], 0x27)
	binary.LittleEndian.PutUint32(h[36:], 10)
	binary.LittleEndian.PutUint32(h[40:], 100)
	return out, nil
}

// SecureBootKept says what the firmware did not keep of the Secure Boot
// variables written: PK, KEK, db and dbx are read from booted as the
// firmware reads them and compared with written's. nil: all kept.
func SecureBootKept(written, booted []byte) error {
	w, err := uefi.ViewAsFirmware(written)
	if err != nil {
		return fmt.Errorf("the store written: %w", err)
	}
	b, err := uefi.ViewAsFirmware(booted)
	if err != nil {
		return fmt.Errorf("the store the firmware left: %w", err)
	}
	for _, v := range []struct {
		name   string
		vendor uefi.GUID
	}{{"PK", uefi.GlobalVariable}, {"KEK", uefi.GlobalVariable}, {"db", uefi.ImageSecurityDatabase}, {"dbx", uefi.ImageSecurityDatabase}} {
		was, _ := w.Value(v.name, v.vendor)
		is, ok := b.Value(v.name, v.vendor)
		if was == nil || !ok || !bytes.Equal(was.Data, is.Data) {
			return fmt.Errorf("%s: the firmware did not keep it as written", v.name)
		}
	}
	if ok, why := b.Settled(); !ok {
		return fmt.Errorf("the store the firmware left is not settled: %s", why)
	}
	return nil
}
