package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/migration"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// TestGovcFromTwoVCenters: one govc export per vCenter, with the same VM
// names, MoRefs and UUIDs (a cloned vCenter): two VMs each, told apart by
// vCenter in their image names and vtpmctl:source.
func TestGovcFromTwoVCenters(t *testing.T) {
	file := filepath.Join("..", "..", "domain", "migration", "testdata", "govc-vm.info-20.json")
	out := filepath.Join(t.TempDir(), "plan.yaml")
	_, errs, code := runCLI(t, "plan", "import", "--govc-from", "https://vc01.example.com/sdk="+file, "--govc-from", "vc02.example.com="+file, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := migration.ReadPlan(f, out)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, vm := range p.VMs {
		seen[vm.Source()] = true
		if !strings.HasPrefix(vm.TargetImage, "vc01-") && !strings.HasPrefix(vm.TargetImage, "vc02-") {
			t.Errorf("%s: image %s", vm.Name, vm.TargetImage)
		}
	}
	if len(p.VMs) != 40 || len(seen) != 40 || !seen["vc01.example.com/vm-1000"] || !seen["vc02.example.com/vm-1000"] {
		t.Errorf("%d VMs, %d sources", len(p.VMs), len(seen))
	}
	if _, errs, code := runCLI(t, "plan", "import", "--govc-from", file); code != 2 || !strings.Contains(errs, "VCENTER=") {
		t.Errorf("bad --govc-from: exit %d %s", code, errs)
	}
}

// TestPlanInputFilesRefuseFIFO: every file plan commands read goes
// through infile: a FIFO (which would block its open for ever) or
// /dev/zero (which never ends) is one line naming it, exit 2, at once.
func TestPlanInputFilesRefuseFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "plan.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	govc := filepath.Join("..", "..", "domain", "migration", "testdata", "govc-vm.info-20.json")
	cases := [][]string{
		{"plan", "checklist", fifo},
		{"plan", "diff", fifo},
		{"plan", "apply", fifo, "--yes"},
		{"plan", "verify", fifo},
		{"plan", "import", "--rvtools", fifo},
		{"plan", "import", "--govc", fifo},
		{"plan", "import", "--govc", "vm1=" + fifo},
		{"plan", "import", "--govc-from", "vc01=" + fifo},
		{"plan", "import", "--govc", govc, "--flavors", fifo},
		{"plan", "checklist", "/dev/zero"},
	}
	for _, args := range cases {
		type res struct {
			errs string
			code int
		}
		done := make(chan res, 1)
		go func() {
			_, errs, code := runCLI(t, args...)
			done <- res{errs, code}
		}()
		select {
		case r := <-done:
			name := fifo
			if args[len(args)-1] == "/dev/zero" {
				name = "/dev/zero"
			}
			if r.code != 2 || !strings.Contains(r.errs, name) || strings.Count(strings.TrimSpace(r.errs), "\n") != 0 {
				t.Errorf("%v: exit %d %q", args, r.code, r.errs)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%v: still waiting on the FIFO after 10s", args)
		}
	}
}

// TestPlanVerifyACLReads counts Barbican ACL reads in plan verify: one
// project with a planned guest, a guest the plan does not name and an
// orphan secret. --no-acls reads none and the SECRET check says the ACL
// was not read (not a pass of that part).
func TestPlanVerifyACLReads(t *testing.T) {
	c := secretsCloud(t)
	p, u := fakecloud.ProjectID, fakecloud.UserID
	other := "7a000000-0000-4000-8000-000000000002"
	c.Handle("GET /compute/v2.1/servers/detail", fakecloud.JSON(200, fmt.Sprintf(`{"servers":[
{"id":%q,"name":"planned","tenant_id":%q,"user_id":%q,"status":"ACTIVE","image":{"id":"img1"},"flavor":{"original_name":"v","extra_specs":{"hw:tpm_version":"2.0","hw:tpm_model":"tpm-crb"}}},
{"id":%q,"name":"unplanned","tenant_id":%q,"user_id":%q,"status":"ACTIVE","image":{"id":"img1"},"flavor":{"original_name":"v","extra_specs":{"hw:tpm_version":"2.0","hw:tpm_model":"tpm-crb"}}}]}`,
		guestID, p, u, other, p, u)))
	secret := func(instance, id string) string {
		return fmt.Sprintf(`{"name":"vTPM secret for instance %s","secret_ref":"%s/key-manager/v1/secrets/%s","creator_id":%q,"status":"ACTIVE","secret_type":"passphrase","created":"2026-01-01T00:00:00"}`, instance, c.URL, id, u)
	}
	c.Handle("GET /key-manager/v1/secrets", fakecloud.JSON(200, `{"total":3,"secrets":[`+secret(guestID, secretID)+","+
		secret(other, "cccccccc-1111-2222-3333-444444444444")+","+secret(goneID, "bbbbbbbb-1111-2222-3333-444444444444")+`]}`))
	plan := filepath.Join(t.TempDir(), "plan.yaml")
	os.WriteFile(plan, []byte("version: 1\nvms:\n  - {name: planned, guest_os: w, firmware: unknown, secure_boot: unknown, source_vtpm: \"yes\", vcpus: 1, ram: 64, disk: 1, target_flavor: v, target_image: w, target_vtpm: 2.0 tpm-crb}\n"), 0o644)
	aclReads := func() int {
		n := 0
		for _, r := range c.Requests {
			if strings.HasPrefix(r, "GET /key-manager/v1/secrets/") && strings.HasSuffix(r, "/acl") {
				n++
			}
		}
		c.Requests = nil
		return n
	}
	secretCheck := func(out string) (status, msg string) {
		var r struct {
			VMs []struct {
				Checks []struct{ Check, Status, Message string }
			} `json:"vms"`
		}
		jsonOut(t, out, &r)
		for _, v := range r.VMs {
			for _, ch := range v.Checks {
				if ch.Check == "SECRET" {
					return ch.Status, ch.Message
				}
			}
		}
		return "", ""
	}
	out, errs, code := runCLI(t, "--os-cloud", "fake", "plan", "verify", plan, "-f", "json")
	st, msg := secretCheck(out)
	if n := aclReads(); code > 1 || st != "pass" || strings.Contains(msg, "not checked") || n != 1 { // the planned guest's secret only, not the unplanned guest's or the orphan's
		t.Errorf("with ACLs: exit %d, %d ACL reads, SECRET %s %q\n%s", code, n, st, msg, errs)
	}
	out, errs, code = runCLI(t, "--os-cloud", "fake", "plan", "verify", plan, "-f", "json", "--no-acls")
	st, msg = secretCheck(out)
	if n := aclReads(); code > 1 || n != 0 || st != "pass" || !strings.Contains(msg, "SECRET-ACL: ACL not read") || !strings.Contains(out, `"SECRET-ACL": "--no-acls"`) {
		t.Errorf("--no-acls: exit %d, %d ACL reads, SECRET %s %q\n%s\n%s", code, n, st, msg, out, errs)
	}
}
