package fleet

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// TestTableOneLinePerHostAt100: hosts audit of 100 hosts as the synthetic
// cloud has them (FQDN hypervisors, five traits, 20 vTPM guests each, a
// few down, disabled or without a TPM trait) draws one line a host at
// 100 columns, each host name whole; csv shows the
// table's columns, --long every one.
func TestTableOneLinePerHostAt100(t *testing.T) {
	traits := []string{"COMPUTE_SECURITY_TPM_1_2", "COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_CRB", "COMPUTE_SECURITY_TPM_TIS", "COMPUTE_SECURITY_UEFI_SECURE_BOOT"}
	var hosts []Host
	var guests []nova.VTPMGuest
	for i := range 100 {
		h := Host{Host: fmt.Sprintf("cmp-%05d", i), Hypervisor: fmt.Sprintf("cmp-%05d.example.net", i), State: "up", Status: "enabled", Traits: traits}
		switch i % 10 {
		case 3:
			h.Traits = []string{}
		case 7:
			h.Traits, h.State = []string{}, "down"
		}
		hosts = append(hosts, h)
		for g := range 20 {
			guests = append(guests, nova.VTPMGuest{ServerID: fmt.Sprintf("s-%d-%d", i, g), Host: h.Host, Mode: nova.SecretUser})
		}
	}
	reps, sum := AuditHosts(nova.Zed, hosts, nil, nova.NewGuestList(guests...))
	res := NewResult(nova.Zed, reps, sum)

	var b bytes.Buffer
	if err := output.Write(&b, output.Options{Format: "table", MaxWidth: 100}, res); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	rows := 0
	for i, l := range lines {
		if n := utf8.RuneCountInString(l); n > 100 {
			t.Fatalf("line %d is %d wide: %s", i+1, n, l)
		}
		if strings.HasPrefix(l, "| ") {
			rows++
		}
	}
	if rows != 1+len(hosts) {
		t.Errorf("%d table lines for %d hosts, want one a host:\n%s", rows-1, len(hosts), strings.Join(lines[:12], "\n"))
	}
	for _, want := range []string{"| warn   | cmp-00000 | up    | enabled | true    | true  | false     | EVACUATION-RISK |", "| down  | enabled ", "| TRAITS +1 "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in the table:\n%s", want, strings.Join(lines[:12], "\n"))
		}
	}
	for _, h := range hosts {
		if strings.Count(b.String(), "| "+h.Host+" ") != 1 {
			t.Errorf("host %s not shown whole once", h.Host)
		}
	}

	b.Reset()
	if err := output.Write(&b, output.Options{Format: "csv"}, res); err != nil {
		t.Fatal(err)
	}
	if head, _, _ := strings.Cut(b.String(), "\n"); head != "result,host,state,status,tpm_2_0,crb,host_mode,checks" {
		t.Errorf("csv header %q", head)
	}
	b.Reset()
	if err := output.Write(&b, output.Options{Format: "csv", Long: true}, res); err != nil {
		t.Fatal(err)
	}
	if head, _, _ := strings.Cut(b.String(), "\n"); head != "result,host,hypervisor,state,status,tpm_2_0,crb,host_mode,traits,checks,findings" {
		t.Errorf("csv --long header %q", head)
	}
	if n := strings.Count(b.String(), "\n"); n != 1+len(hosts) {
		t.Errorf("csv --long: %d lines for %d hosts", n, len(hosts))
	}
}

// TestShort: a host's findings in short.
func TestShort(t *testing.T) {
	c := func(id string, s result.Status) hostcheck.Check { return hostcheck.Check{ID: id, Status: s} }
	for _, tc := range []struct {
		checks []hostcheck.Check
		want   string
	}{
		{nil, ""},
		{[]hostcheck.Check{c("TRAITS", result.Pass)}, ""},
		{[]hostcheck.Check{c("TRAITS", result.Warn)}, "TRAITS"},
		{[]hostcheck.Check{c("SERVICE", result.Warn), c("TRAITS", result.Warn)}, "SERVICE +1"},
		{[]hostcheck.Check{c("SERVICE", result.Warn), c("VIRT-TYPE", result.Fail), c("SWTPM", result.Pass)}, "VIRT-TYPE +1"},
	} {
		if got := (HostReport{Report: hostcheck.Report{Checks: tc.checks}}).Short(); got != tc.want {
			t.Errorf("Short(%v) = %q, want %q", tc.checks, got, tc.want)
		}
	}
}
