package secureboot

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/uefi"
)

// timeBasedAuth are the attributes the firmware gives KEK and db:
// non-volatile, boot-service and runtime access, time-based
// authenticated write access.
const timeBasedAuth = 0x1 | 0x2 | 0x4 | 0x20

// verify reads after as an independent reader would, against before,
// without trusting what the update said it did:
//   - the file keeps its size, and every variable but KEK and db is as
//     it was, byte for byte and attribute for attribute (PK and dbx
//     among them); none appears or goes but those two;
//   - KEK and db keep every entry they held (owner and certificate; the
//     counts of hashes and other entries) and gain exactly those of
//     Microsoft's 2023 certificates they lacked, with Microsoft's owner;
//   - KEK and db are time-based authenticated variables.
func verify(before, after []byte) error {
	if len(after) != len(before) {
		return fmt.Errorf("the file is %d bytes, was %d", len(after), len(before))
	}
	old, err := uefi.ReadVarStore(before)
	if err != nil {
		return fmt.Errorf("the original: %w", err)
	}
	cur, err := uefi.ReadVarStore(after)
	if err != nil {
		return fmt.Errorf("the new file: %w", err)
	}
	if !cur.Authenticated {
		return fmt.Errorf("the new file is no authenticated variable store")
	}
	isSB := func(v uefi.Variable) bool {
		return v.Name == "KEK" && v.Vendor == uefi.GlobalVariable || v.Name == "db" && v.Vendor == uefi.ImageSecurityDatabase
	}
	others := func(s *uefi.VarStore) map[string]uefi.Variable {
		m := map[string]uefi.Variable{}
		for _, v := range s.Variables {
			if !isSB(v) {
				m[v.Vendor.String()+"/"+v.Name] = v
			}
		}
		return m
	}
	was, is := others(old), others(cur)
	for k, v := range was {
		n, ok := is[k]
		switch {
		case !ok:
			return fmt.Errorf("variable %s is gone", k)
		case !bytes.Equal(n.Data, v.Data) || n.Attributes != v.Attributes || n.TimeStamp != v.TimeStamp || n.MonotonicCount != v.MonotonicCount:
			return fmt.Errorf("variable %s changed", k)
		}
	}
	for k := range is {
		if _, ok := was[k]; !ok {
			return fmt.Errorf("variable %s appeared", k)
		}
	}
	for _, sv := range []struct {
		name   string
		vendor uefi.GUID
	}{{"KEK", uefi.GlobalVariable}, {"db", uefi.ImageSecurityDatabase}} {
		if err := verifyList(old, cur, sv.name, sv.vendor); err != nil {
			return fmt.Errorf("%s: %w", sv.name, err)
		}
	}
	return nil
}

// verifyList: one signature database kept whole, plus the 2023
// certificates it lacked.
func verifyList(old, cur *uefi.VarStore, name string, vendor uefi.GUID) error {
	was, err := entries(old, name, vendor)
	if err != nil {
		return fmt.Errorf("the original: %w", err)
	}
	want := was.clone()
	for _, c := range uefi.Microsoft2023() {
		if c.Variable == name && !was.hasDigest(c.SHA256) {
			want.certs = append(want.certs, uefi.MicrosoftOwner.String()+" "+c.SHA256)
		}
	}
	is, err := entries(cur, name, vendor)
	if err != nil {
		return err
	}
	if v, ok := cur.Get(name, vendor); ok {
		if v.Attributes&timeBasedAuth != timeBasedAuth {
			return fmt.Errorf("attributes %#x, want %#x (time-based authenticated)", v.Attributes, timeBasedAuth)
		}
		if o, ok := old.Get(name, vendor); ok && o.Attributes != v.Attributes {
			return fmt.Errorf("attributes %#x, were %#x", v.Attributes, o.Attributes)
		}
	}
	if got, exp := is.String(), want.String(); got != exp {
		return fmt.Errorf("holds %s, want %s", got, exp)
	}
	return nil
}

// entrySet is a signature database as a comparable set.
type entrySet struct {
	certs         []string // "owner sha256"
	hashes, other int
}

func entries(s *uefi.VarStore, name string, vendor uefi.GUID) (entrySet, error) {
	var e entrySet
	v, ok := s.Get(name, vendor)
	if !ok {
		return e, nil
	}
	db, err := uefi.ParseSignatureLists(v.Data)
	if err != nil {
		return e, err
	}
	for _, c := range db.Certificates {
		e.certs = append(e.certs, c.Owner.String()+" "+c.SHA256.String())
	}
	e.hashes, e.other = db.SHA256, db.Other+db.TooShort
	return e, nil
}

func (e entrySet) clone() entrySet {
	e.certs = append([]string{}, e.certs...)
	return e
}

func (e entrySet) hasDigest(sha string) bool {
	for _, c := range e.certs {
		if strings.HasSuffix(c, " "+sha) {
			return true
		}
	}
	return false
}

func (e entrySet) String() string {
	c := append([]string{}, e.certs...)
	sort.Strings(c)
	return fmt.Sprintf("%d certificate(s) [%s], %d hash(es), %d other", len(c), strings.Join(c, ", "), e.hashes, e.other)
}
