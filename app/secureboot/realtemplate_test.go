package secureboot

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
)

// TestUpdateRealTemplates: a guest made from Debian's Microsoft-keyed
// templates (the ovmf package make test installs: bookworm's enrol the
// 2011 set only) is read as 2011 with Debian's PK, updated with a backup
// and verified, and then reads as 2023; the templates are required, a
// missing package fails by name. VTPMCTL_OVMF_ROOT names another tree
// holding usr/share/OVMF.
func TestUpdateRealTemplates(t *testing.T) {
	root := os.Getenv("VTPMCTL_OVMF_ROOT")
	for _, name := range []string{"OVMF_VARS_4M.ms.fd", "OVMF_VARS.ms.fd"} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(root, "/usr/share/OVMF", name))
			if err != nil {
				t.Fatalf("%v: install Debian's ovmf package (make ovmf)", err)
			}
			p := writeFile(t, t.TempDir(), "instance_VARS.fd", b)
			st, err := Status(context.Background(), StatusRequest{NVRAM: p, Now: now})
			if err != nil {
				t.Fatal(err)
			}
			g := st.Guests[0]
			if g.PK == nil || g.PK.Subject == "" {
				t.Fatalf("no PK read: %+v", g)
			}
			if g.Certs == hostcheck.Certs2023 { // a newer ovmf (forky's): nothing is written
				res, err := Update(context.Background(), UpdateRequest{NVRAM: p, Now: now})
				if got, _ := os.ReadFile(p); err != nil || res.Files[0].Action != ActUnchanged || string(got) != string(b) {
					t.Errorf("%s enrols the 2023 certificates, yet: %+v %v", name, res.Files, err)
				}
				return
			}
			if g.Certs != hostcheck.Certs2011 || g.Remedy != hostcheck.CertRemedyUpdateNVRAM {
				t.Fatalf("%s: %s %s %q", name, g.Certs, g.Remedy, g.Detail)
			}
			res, err := Update(context.Background(), UpdateRequest{NVRAM: p, Now: now})
			if err != nil {
				t.Fatal(err)
			}
			f := res.Files[0]
			got, _ := os.ReadFile(p)
			if f.Action != ActUpdated || len(f.Added) != 4 || verify(b, got) != nil {
				t.Fatalf("%+v; verify: %v", f, verify(b, got))
			}
			t.Logf("%s (%d bytes, PK %q): store %d → %d of %d bytes, compacted %v", name, len(b), g.PK.Subject, f.BytesBefore, f.BytesAfter, f.StoreSize, f.Compacted)
			st, _ = Status(context.Background(), StatusRequest{NVRAM: p, Now: now})
			if g := st.Guests[0]; g.Certs != hostcheck.Certs2023 || g.Remedy != hostcheck.CertRemedyNone || len(g.KEK) != 3 || len(g.DB) != 5 {
				t.Errorf("after: %s %s, %d KEK, %d db", g.Certs, g.Remedy, len(g.KEK), len(g.DB))
			}
		})
	}
}
