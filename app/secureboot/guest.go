package secureboot

import (
	"context"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/uefi"
)

// inspect fills g from its variable file's bytes (readErr: the file
// could not be read; g.NVRAM "": the guest has none): what PK, KEK, db
// and dbx enrol, host check's class, and what update would add or why
// it could not.
func inspect(ctx context.Context, g *Guest, b []byte, readErr error, now time.Time) {
	g.KEK, g.DB = []CertInfo{}, []CertInfo{}
	var sb *uefi.SecureBoot
	err := readErr
	if err == nil && g.NVRAM != "" {
		var vs *uefi.VarStore
		if vs, err = uefi.ReadVarStoreContext(ctx, b); err == nil {
			sb, err = vs.SecureBootContext(ctx)
		}
	}
	g.Certs, g.Missing = hostcheck.CertsOf(g.NVRAM, sb, err)
	if err != nil {
		g.Error = err.Error()
		return
	}
	if sb == nil {
		return
	}
	if sb.PK != nil && len(sb.PK.Certificates) > 0 {
		pk := certInfo(sb.PK.Certificates[0], now)
		g.PK = &pk
	}
	g.KEK, g.DB = certInfos(sb.KEK, now), certInfos(sb.DB, now)
	if sb.DBX != nil {
		g.DBXEntries = sb.DBX.Entries()
	}
	_, upd, aerr := uefi.AddMicrosoft2023(b, now)
	if aerr != nil {
		g.blocked = refusalOf(aerr)
		return
	}
	g.WouldAdd = additions(upd.Added)
}

func certInfos(d *uefi.SignatureDB, now time.Time) []CertInfo {
	out := []CertInfo{}
	if d == nil {
		return out
	}
	for _, c := range d.Certificates {
		out = append(out, certInfo(c, now))
	}
	return out
}

func certInfo(c uefi.Certificate, now time.Time) CertInfo {
	subject := c.Subject
	if c.ParseError != "" {
		subject = "(unreadable certificate: " + c.ParseError + ")"
	}
	return CertInfo{Subject: subject, NotAfter: c.NotAfter, Expired: c.ParseError == "" && now.After(c.NotAfter), Owner: c.Owner, SHA256: c.SHA256}
}

func additions(l []uefi.CertAddition) []Addition {
	out := make([]Addition, len(l))
	for i, a := range l {
		out[i] = Addition{Variable: a.Variable, Subject: a.Subject, SHA256: a.SHA256}
	}
	return out
}
