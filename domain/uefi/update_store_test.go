package uefi

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAddMicrosoft2023WritesAsFirmware: in a store with room, the update
// changes nothing before the old end of the records but the old KEK and
// db records' states (to deleted, 0x3C, from added or in transition), and
// the new records follow in erased space.
func TestAddMicrosoft2023WritesAsFirmware(t *testing.T) {
	pk, kek11, db11 := debianPK(t), only2011(t, "KEK"), only2011(t, "db")
	inTransition := storeWith(t, pk, nil, db11, Variable{Name: "KEK", Vendor: GlobalVariable, Attributes: sbAttributes, State: varAddedTran, Data: kek11})
	for _, tc := range []struct {
		name  string
		store []byte
		marks int // old records marked deleted
	}{
		{"added records", storeWith(t, pk, kek11, db11), 2},
		{"KEK in transition", inTransition, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, up, err := AddMicrosoft2023(tc.store, updateNow)
			if err != nil {
				t.Fatal(err)
			}
			end := 72 + storeHdrLen + up.BytesBefore
			marks := 0
			for i := range end {
				if out[i] == tc.store[i] {
					continue
				}
				if (tc.store[i] != varAdded && tc.store[i] != varAddedTran) || out[i] != 0x3C || binary.LittleEndian.Uint16(out[i-2:]) != startID {
					t.Fatalf("byte %d changed from %#x to %#x: not a record's state marked deleted", i, tc.store[i], out[i])
				}
				marks++
			}
			if marks != tc.marks || up.Compacted {
				t.Errorf("%d records marked deleted (compacted %v), want %d", marks, up.Compacted, tc.marks)
			}
			s, err := ReadVarStore(out)
			if err != nil {
				t.Fatal(err)
			}
			last := s.Variables[len(s.Variables)-2:]
			if last[0].Name != "KEK" || last[1].Name != "db" || last[0].State != varAdded {
				t.Errorf("the store ends with %s, %s: want the new KEK, db", last[0].Name, last[1].Name)
			}
			checkUpdate(t, tc.store, out, up)
		})
	}
}

// TestAddMicrosoft2023Timestamp: the new KEK's timestamp is the later of
// the old one and now, to the second in UTC; a variable without
// time-based authentication keeps its own.
func TestAddMicrosoft2023Timestamp(t *testing.T) {
	pk, kek11, db11 := debianPK(t), only2011(t, "KEK"), only2011(t, "db")
	ts := func(y uint16, mo, d, h, mi, s byte, ns uint32) [16]byte {
		var b [16]byte
		binary.LittleEndian.PutUint16(b[0:], y)
		b[2], b[3], b[4], b[5], b[6] = mo, d, h, mi, s
		binary.LittleEndian.PutUint32(b[8:], ns)
		return b
	}
	nowTS := ts(2026, 12, 6, 10, 40, 5, 0)
	for _, tc := range []struct {
		name      string
		old, want [16]byte
		attr      uint32
	}{
		{"older: now", ts(2025, 3, 10, 2, 53, 39, 0), nowTS, sbAttributes},
		{"zero: now", [16]byte{}, nowTS, sbAttributes},
		{"later: kept", ts(2031, 1, 1, 0, 0, 0, 0), ts(2031, 1, 1, 0, 0, 0, 0), sbAttributes},
		{"same second, later nanosecond: kept", ts(2026, 12, 6, 10, 40, 5, 7), ts(2026, 12, 6, 10, 40, 5, 7), sbAttributes},
		{"earlier second: now", ts(2026, 12, 6, 10, 40, 4, 999999999), nowTS, sbAttributes},
		{"not time-based: kept", ts(2020, 1, 1, 0, 0, 0, 0), ts(2020, 1, 1, 0, 0, 0, 0), 0x7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := storeWith(t, pk, nil, db11, Variable{Name: "KEK", Vendor: GlobalVariable, Attributes: tc.attr, TimeStamp: tc.old, Data: kek11})
			out, _, err := AddMicrosoft2023(store, updateNow)
			if err != nil {
				t.Fatal(err)
			}
			s, _ := ReadVarStore(out)
			k, _ := s.Get("KEK", GlobalVariable)
			if k.TimeStamp != tc.want || k.Attributes != tc.attr {
				t.Errorf("KEK timestamp % x attributes %#x, want % x %#x", k.TimeStamp, k.Attributes, tc.want, tc.attr)
			}
		})
	}
	if _, _, err := AddMicrosoft2023(storeWith(t, pk, kek11, db11), time.Time{}); err == nil || !strings.Contains(err.Error(), "EFI_TIME") {
		t.Errorf("year 1: %v, want a refusal", err)
	}
}

// TestAddMicrosoft2023RealTemplates: Debian's Secure Boot templates on
// this machine and in the release chroots: a 2011-only one gains the
// KEK and the three db certificates, a 2023 one stays as it is.
// bookworm's 4 MiB template is required, as the other template tests
// require it.
func TestAddMicrosoft2023RealTemplates(t *testing.T) {
	root := os.Getenv("VTPMCTL_OVMF_ROOT")
	if _, err := os.Stat(filepath.Join(root, "/usr/share/OVMF/OVMF_VARS_4M.ms.fd")); err != nil {
		t.Fatalf("%v: install Debian's ovmf package (make test does)", err)
	}
	var files []string
	for _, tree := range append([]string{root}, globDirs("/var/tmp/vtpmctl-releases/*/root")...) {
		m, _ := filepath.Glob(filepath.Join(tree, "/usr/share/OVMF/OVMF_VARS*.ms.fd"))
		files = append(files, m...)
	}
	for _, p := range files {
		t.Run(p, func(t *testing.T) {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			s, _ := ReadVarStore(b)
			sb, _ := s.SecureBoot()
			want := 0
			for _, c := range Microsoft2023() {
				if !(c.Variable == "KEK" && sb.KEK.Has(c.Subject) || c.Variable == "db" && sb.DB.Has(c.Subject)) {
					want++
				}
			}
			start := time.Now()
			out, up, err := AddMicrosoft2023(b, updateNow)
			took := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			if len(up.Added) != want {
				t.Fatalf("%d certificates added, %d were missing", len(up.Added), want)
			}
			checkUpdate(t, b, out, up)
			t.Logf("%s: %d added, records %d → %d of %d bytes (compacted %v), %s", p, len(up.Added), up.BytesBefore, up.BytesAfter, up.StoreSize, up.Compacted, took)
		})
	}
}

func BenchmarkAddMicrosoft2023(b *testing.B) {
	store := storeWith(b, debianPK(b), only2011(b, "KEK"), only2011(b, "db"))
	if t, err := os.ReadFile("/usr/share/OVMF/OVMF_VARS_4M.ms.fd"); err == nil {
		store = t
	}
	b.SetBytes(int64(len(store)))
	for b.Loop() {
		if _, up, err := AddMicrosoft2023(store, updateNow); err != nil || len(up.Added) == 0 {
			b.Fatal(err, up)
		}
	}
}

// describeUpdate is a one-line account for logs.
func describeUpdate(up SecureBootUpdate) string {
	var l []string
	for _, a := range up.Added {
		l = append(l, a.Variable+":"+a.Subject)
	}
	return fmt.Sprintf("%s; records %d → %d of %d", strings.Join(l, ", "), up.BytesBefore, up.BytesAfter, up.StoreSize)
}

// sameBytesOutsideStore: the volume header, the store header and what
// follows the store (the fault-tolerant-write areas) are untouched.
func sameBytesOutsideStore(in, out []byte) bool {
	le := binary.LittleEndian
	size := int(le.Uint32(in[72+16:]))
	return bytes.Equal(in[:72+storeHdrLen], out[:72+storeHdrLen]) && bytes.Equal(in[72+size:], out[72+size:])
}
