package uefi

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

var markerVendor = MustGUID("5b1a5e5e-7a7a-4c4c-9d9d-000000000023")

func TestAppendVariable(t *testing.T) {
	marker := Variable{Name: "VtpmctlMarker", Vendor: markerVendor, Attributes: 0x7, Data: []byte("marker 1")}
	lang := testVar{Name: "Lang", Vendor: GlobalVariable, State: varAdded, Data: []byte("eng")}
	// a store filled to its last bytes: one variable as large as fits
	big := testVar{Name: "Big", Vendor: ownerA, State: varAdded, Data: make([]byte, 64<<10-storeHdrLen-authHdrLen-8-80)}
	plain := BuildVarStore(nil)
	copy(plain[72:88], VariableGUID[:])
	for _, tc := range []struct {
		name  string
		store []byte
		v     Variable
		err   string
		names []string
	}{
		{"empty store", buildStore(nil), marker, "", []string{"VtpmctlMarker"}},
		{"after records", buildStore([]testVar{lang, {Name: "Gone", Vendor: ownerA, State: 0x3C, Data: []byte{1, 2, 3}}}), marker, "", []string{"Lang", "VtpmctlMarker"}},
		{"already there", buildStore([]testVar{{Name: marker.Name, Vendor: marker.Vendor, State: varAdded}}), marker, "already in the store", nil},
		{"store full", buildStore([]testVar{big}), marker, "do not fit", nil},
		{"not erased", patch(buildStore([]testVar{lang}), 72+storeHdrLen+64+8+4, []byte{0}), marker, "not erased flash", nil},
		{"plain store", plain, marker, "not an authenticated variable store", nil},
		{"not a volume", []byte("nothing"), marker, "too short", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := AppendVariable(tc.store, tc.v)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(out) != len(tc.store) {
				t.Errorf("%d bytes written, the file had %d", len(out), len(tc.store))
			}
			s, err := ReadVarStore(out)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, v := range s.Variables {
				names = append(names, v.Name)
			}
			if strings.Join(names, ",") != strings.Join(tc.names, ",") {
				t.Errorf("variables %v, want %v", names, tc.names)
			}
			got, ok := s.Get(tc.v.Name, tc.v.Vendor)
			if !ok || !bytes.Equal(got.Data, tc.v.Data) || got.Attributes != tc.v.Attributes {
				t.Errorf("appended variable read back as %+v", got)
			}
		})
	}
}

// TestAppendVariableRealTemplate: the marker goes into the machine's own
// Secure Boot template and every enrolled key stays as it was.
func TestAppendVariableRealTemplate(t *testing.T) {
	const p = "/usr/share/OVMF/OVMF_VARS_4M.ms.fd"
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v: install Debian's ovmf package (make test does)", err)
	}
	before, err := ReadVarStore(b)
	if err != nil {
		t.Fatal(err)
	}
	out, err := AppendVariable(b, Variable{Name: "VtpmctlMarker", Vendor: markerVendor, Attributes: 0x7, Data: []byte("kept?")})
	if err != nil {
		t.Fatal(err)
	}
	after, err := ReadVarStore(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Variables) != len(before.Variables)+1 {
		t.Fatalf("%d variables after, %d before", len(after.Variables), len(before.Variables))
	}
	for i, v := range before.Variables {
		w := after.Variables[i]
		if v.Name != w.Name || v.Vendor != w.Vendor || !bytes.Equal(v.Data, w.Data) {
			t.Errorf("variable %d changed: %s → %s", i, v.Name, w.Name)
		}
	}
	if m, ok := after.Get("VtpmctlMarker", markerVendor); !ok || string(m.Data) != "kept?" {
		t.Errorf("marker not read back: %+v", m)
	}
}
