//go:build ovmf

package secureboot

// Debian 12's 2 MiB Secure Boot build (OVMF_CODE.secboot.fd with
// OVMF_VARS.ms.fd) prints nothing under this QEMU and TCG even on its
// own unmodified template, so the boots use the 4 MiB build; the 2 MiB
// layout is held to the firmware's walk in the unit tests.
//
// The real firmware as the authority on what update writes: Debian's
// OVMF (Secure Boot code, SMM, so TCG: KVM here has no SMM) booted under
// QEMU on stores update wrote, to its boot manager, then the store the
// firmware left read back with the firmware's walk. `make ovmf-boot`
// runs these (they need qemu-system-x86 and ovmf, which make ovmf
// installs).

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/app/secureboot/sbtest"
	"github.com/vtpmctl/vtpmctl/domain/uefi"
)

const (
	code4M   = "/usr/share/OVMF/OVMF_CODE_4M.secboot.fd"
	vars4M   = "/usr/share/OVMF/OVMF_VARS_4M.ms.fd"
	bootWait = 300 * time.Second // 4 s on an idle machine; minutes when TCG shares two cores
)

// bootOVMF boots code on the variable file vars (512 MiB: under TCG,
// OVMF never reaches its boot manager at 64) until the boot manager says
// it found nothing to boot, and returns the serial console's text. QEMU
// is stopped by its PID, and waited for, on every path.
func bootOVMF(t *testing.T, code, vars string) string {
	t.Helper()
	serial := vars + ".serial"
	cmd := exec.Command("qemu-system-x86_64", "-machine", "q35,smm=on,accel=tcg",
		"-global", "driver=cfi.pflash01,property=secure,value=on",
		"-drive", "if=pflash,format=raw,unit=0,readonly=on,file="+qemuValue(code),
		"-drive", "if=pflash,format=raw,unit=1,file="+qemuValue(vars),
		"-m", "512", "-nodefaults", "-display", "none", "-net", "none", "-no-reboot",
		"-serial", "file:"+qemuValue(serial))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("qemu-system-x86_64 (make ovmf installs it): %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		cmd.Process.Kill()
		<-exited
	}()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("QEMU ended before the boot manager (%v): %s", err, stderr.String())
		case <-tick.C:
		}
		out, _ := os.ReadFile(serial)
		if bytes.Contains(out, []byte("No bootable option or device was found")) {
			// the boot manager reached: the firmware has written its
			// variables; QEMU is stopped (the flash is written through)
			cmd.Process.Kill()
			<-exited
			exited <- nil
			t.Logf("%s: boot manager after %.1f s", filepath.Base(vars), time.Since(start).Seconds())
			return string(out)
		}
		if time.Since(start) > bootWait {
			t.Fatalf("no boot manager after %s; serial: %q", bootWait, tail(out))
		}
	}
}

// qemuValue escapes a path for a QEMU option list (a comma is doubled).
func qemuValue(s string) string { return strings.ReplaceAll(s, ",", ",,") }

func tail(b []byte) string {
	if len(b) > 400 {
		b = b[len(b)-400:]
	}
	return string(b)
}

// nvramCase is one store shape: make builds it in dir.
type nvramCase struct {
	name       string
	code       string
	make       func(t *testing.T, dir string) string
	compacted  bool
	wantLeftBy string // a variable the firmware wrote before the update, which must survive it
}

func copyTemplate(t *testing.T, dir, from string) string {
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatalf("%v (make ovmf installs Debian's ovmf)", err)
	}
	return writeFile(t, dir, "guest_VARS.fd", b)
}

// withRemnantFile leaves an interrupted write after the last record.
func withRemnantFile(t *testing.T, p string) {
	b, _ := os.ReadFile(p)
	out, err := sbtest.WithRemnant(b)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p, out, 0o600)
}

// fillDeleted fills the store's free space with deleted records until
// too little is left for the 2023 certificates, so the update compacts.
func fillDeleted(t *testing.T, p string) {
	b, _ := os.ReadFile(p)
	for i := 0; ; i++ {
		fw, err := uefi.ViewAsFirmware(b)
		if err != nil {
			t.Fatal(err)
		}
		if fw.StoreEnd-fw.LastVariable < 8<<10 {
			break
		}
		size := min(4000, fw.StoreEnd-fw.LastVariable-200)
		next, err := uefi.AppendVariable(b, uefi.Variable{Name: fmt.Sprintf("Fill%04d", i), Vendor: uefi.GlobalVariable, Attributes: 0x7, Data: bytes.Repeat([]byte{0xA5}, size)})
		if err != nil {
			t.Fatal(err)
		}
		next[fw.LastVariable+2] = 0x3C // deleted, as the firmware leaves a replaced value
		b = next
	}
	os.WriteFile(p, b, 0o600)
}

func TestOVMFBootsUpdatedStores(t *testing.T) {
	cases := []nvramCase{
		{name: "4 MiB template", code: code4M, make: func(t *testing.T, d string) string { return copyTemplate(t, d, vars4M) }},
		{name: "compacted", code: code4M, compacted: true, make: func(t *testing.T, d string) string {
			p := copyTemplate(t, d, vars4M)
			fillDeleted(t, p)
			return p
		}},
		{name: "interrupted-write remnant", code: code4M, make: func(t *testing.T, d string) string {
			p := copyTemplate(t, d, vars4M)
			withRemnantFile(t, p)
			return p
		}},
		{name: "written by the firmware after a remnant", code: code4M, wantLeftBy: "firmware", make: func(t *testing.T, d string) string {
			p := copyTemplate(t, d, vars4M)
			withRemnantFile(t, p)
			bootOVMF(t, code4M, p) // the firmware writes after the remnant
			return p
		}},
	}
	start := time.Now()
	var lines []string
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := tc.make(t, dir)
			before, _ := os.ReadFile(p)
			res, err := Update(context.Background(), UpdateRequest{NVRAM: p, Now: time.Now()})
			if err != nil {
				t.Fatalf("update: %v", err)
			}
			f := res.Files[0]
			if f.Action != ActUpdated || f.Compacted != tc.compacted {
				t.Fatalf("update: %s (compacted %v): %s", f.Action, f.Compacted, f.Detail)
			}
			written, _ := os.ReadFile(p)
			w, err := uefi.ViewAsFirmware(written)
			if err != nil {
				t.Fatal(err)
			}
			serial := bootOVMF(t, tc.code, p)
			if !strings.Contains(serial, "Security Violation") {
				t.Errorf("the unsigned shell was not refused: Secure Boot is not enforced; serial %q", tail([]byte(serial)))
			}
			booted, _ := os.ReadFile(p)
			if bytes.Equal(booted, written) {
				t.Fatal("the firmware wrote nothing to the store: it never ran its variable driver")
			}
			fw, err := uefi.ViewAsFirmware(booted)
			if err != nil {
				t.Fatalf("the store the firmware left: %v", err)
			}
			if err := sbtest.SecureBootKept(written, booted); err != nil {
				t.Error(err)
			}
			var lost []string
			for _, v := range w.Values {
				if _, ok := fw.Value(v.Name, v.Vendor); !ok {
					lost = append(lost, v.Name)
				}
			}
			if len(lost) > 0 {
				t.Errorf("the firmware dropped %v", lost)
			}
			if tc.wantLeftBy != "" {
				b0, _ := uefi.ViewAsFirmware(before)
				for _, v := range b0.Values {
					if _, ok := w.Value(v.Name, v.Vendor); !ok {
						t.Errorf("the update dropped %s, which the firmware had written", v.Name)
					}
				}
			}
			kek, _ := fw.Value("KEK", uefi.GlobalVariable)
			db, _ := fw.Value("db", uefi.ImageSecurityDatabase)
			lines = append(lines, fmt.Sprintf("%-40s updated (+%d certs, compacted %v), booted, KEK %d B, db %d B kept, %d variables kept, firmware wrote %d B more",
				tc.name, len(f.Added), f.Compacted, len(kek.Data), len(db.Data), len(fw.Values), fw.LastVariable-w.LastVariable))
		})
	}
	t.Logf("OVMF boots: %d shapes in %.1f s\n%s", len(cases), time.Since(start).Seconds(), strings.Join(lines, "\n"))
}

// TestOVMFRepairsWhatUpdateRefuses: a store with flash written past the
// firmware's end of records is refused, untouched, saying one boot
// repairs it; the firmware, booted on it, reclaims it; then the update
// goes through and the firmware keeps what it wrote.
func TestOVMFRepairsWhatUpdateRefuses(t *testing.T) {
	p := copyTemplate(t, t.TempDir(), vars4M)
	b, _ := os.ReadFile(p)
	fw, err := uefi.ViewAsFirmware(b)
	if err != nil {
		t.Fatal(err)
	}
	b[fw.LastVariable+200] = 0 // a torn write past the records
	os.WriteFile(p, b, 0o600)
	res, err := Update(context.Background(), UpdateRequest{NVRAM: p, Now: time.Now()})
	if got, _ := os.ReadFile(p); err == nil || res.Files[0].Refusal != RefuseUnsettled || !bytes.Equal(got, b) ||
		!strings.Contains(res.Files[0].Detail, "one boot of the guest lets the firmware repair it") {
		t.Fatalf("want a refusal, file untouched: %v %+v", err, res.Files[0])
	}
	bootOVMF(t, code4M, p)
	repaired, _ := os.ReadFile(p)
	if fw, err := uefi.ViewAsFirmware(repaired); err != nil {
		t.Fatal(err)
	} else if ok, why := fw.Settled(); !ok {
		t.Fatalf("one boot did not settle it: %s", why)
	}
	res, err = Update(context.Background(), UpdateRequest{NVRAM: p, Now: time.Now()})
	if err != nil || res.Files[0].Action != ActUpdated {
		t.Fatalf("after the firmware's repair: %v %+v", err, res.Files[0])
	}
	written, _ := os.ReadFile(p)
	bootOVMF(t, code4M, p)
	booted, _ := os.ReadFile(p)
	if err := sbtest.SecureBootKept(written, booted); err != nil {
		t.Fatal(err)
	}
}
