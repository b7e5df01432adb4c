package uefi

import (
	"bytes"
	"errors"
	"fmt"
)

// verify reads an update's output back with the package's own reader and
// holds it to the plan: no byte outside the store's records changed;
// every variable but the new KEK and db is there, in order, as it was
// (name, vendor, attributes, count, timestamp, key index, value); the new
// ones are there once each, as planned, their old signature lists first;
// and their certificates are the old ones followed by exactly the planned
// 2023 certificates, by the fingerprints in ms2023, owned by Microsoft.
func verify(file, out []byte, l *storeLayout, before *VarStore, sbBefore *SecureBoot, p *update) error {
	recStart, recEnd := l.base+storeHdrLen, l.base+l.size
	if len(out) != len(file) || !bytes.Equal(out[:recStart], file[:recStart]) || !bytes.Equal(out[recEnd:], file[recEnd:]) {
		return errors.New("bytes outside the variable store's records changed")
	}
	after, err := ReadVarStore(out)
	if err != nil {
		return err
	}
	if !after.Authenticated {
		return errors.New("the store is no longer authenticated")
	}
	keep := func(vs []Variable) []Variable {
		var l []Variable
		for _, v := range vs {
			if !p.replaces(varKey{v.Name, v.Vendor}) {
				l = append(l, v)
			}
		}
		return l
	}
	was, is := keep(before.Variables), keep(after.Variables)
	if len(was) != len(is) {
		return fmt.Errorf("%d other variables before, %d after", len(was), len(is))
	}
	for i := range was {
		if !sameVariable(was[i], is[i]) {
			return fmt.Errorf("variable %s (%s) changed", was[i].Name, was[i].Vendor)
		}
	}
	for i, nv := range p.vars {
		if n := liveCopies(after, nv.Name, nv.Vendor); n != 1 {
			return fmt.Errorf("%s: %d live copies", nv.Name, n)
		}
		got, _ := after.Get(nv.Name, nv.Vendor)
		var old []byte
		if p.old[i] != nil {
			old = p.old[i].Data
		}
		if !sameVariable(*got, nv) || !bytes.HasPrefix(got.Data, old) {
			return fmt.Errorf("%s is not as planned", nv.Name)
		}
	}
	sbAfter, err := after.SecureBoot()
	if err != nil {
		return err
	}
	for i, nv := range p.vars {
		was, is := sbBefore.KEK, sbAfter.KEK
		if nv.Name == "db" {
			was, is = sbBefore.DB, sbAfter.DB
		}
		if err := gained(was, is, p.certs[i]); err != nil {
			return fmt.Errorf("%s: %w", nv.Name, err)
		}
	}
	return nil
}

// gained checks that is holds was's entries, then certs.
func gained(was, is *SignatureDB, certs []MS2023Cert) error {
	if was == nil {
		was = &SignatureDB{}
	}
	if is == nil || len(is.Certificates) != len(was.Certificates)+len(certs) || is.SHA256 != was.SHA256 || is.Other != was.Other || is.TooShort != was.TooShort {
		return errors.New("entries lost or gained beyond the 2023 certificates")
	}
	for i, c := range was.Certificates {
		if d := is.Certificates[i]; d.SHA256 != c.SHA256 || d.Owner != c.Owner {
			return fmt.Errorf("certificate %d (%s) changed", i, c.Subject)
		}
	}
	for i, c := range certs {
		d := is.Certificates[len(was.Certificates)+i]
		if d.SHA256 != c.digest() || d.Owner != MicrosoftOwner || d.Subject != c.Subject {
			return fmt.Errorf("%q was written as %q (SHA-256 %s, owner %s), not as its embedded fingerprint %s", c.Subject, d.Subject, d.SHA256, d.Owner, c.SHA256)
		}
	}
	return nil
}

// sameVariable: a and b are one variable with one value; the record's
// state (a record in transition rewritten as added) is not compared.
func sameVariable(a, b Variable) bool {
	return a.Name == b.Name && a.Vendor == b.Vendor && a.Attributes == b.Attributes && a.MonotonicCount == b.MonotonicCount &&
		a.TimeStamp == b.TimeStamp && a.PubKeyIndex == b.PubKeyIndex && bytes.Equal(a.Data, b.Data)
}
