package fleet

import (
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

func TestUpgradeCheck(t *testing.T) {
	zed := []string{"COMPUTE_SECURITY_TPM_1_2", "COMPUTE_SECURITY_TPM_2_0"}
	dal := append(append([]string{}, zed...), "COMPUTE_SECURITY_TPM_TIS", "COMPUTE_SECURITY_TPM_CRB")
	hosts := []Host{{Host: "a", State: "up", Status: "enabled", Traits: zed}, {Host: "b", State: "up", Status: "enabled", Traits: zed}}
	guests := []nova.VTPMGuest{{ServerID: "s1", Name: "win1", Host: "a", Version: "2.0", Model: "tpm-tis", Mode: "user"}}

	r := UpgradeImpact(nova.Zed, nova.Dalmatian, hosts, nova.NewGuestList(guests...))
	if len(r.UpgradeNow) != 2 || len(r.Stranded) != 1 || !strings.Contains(strings.Join(r.Advice, " "), "COMPUTE_SECURITY_TPM_TIS") {
		t.Errorf("Zed computes under a 2024.2 scheduler: %+v", r)
	}
	// One host upgraded: the guest can move there, nothing stranded.
	hosts[1].Traits = dal
	r = UpgradeImpact(nova.Zed, nova.Dalmatian, hosts, nova.NewGuestList(guests...))
	if len(r.Stranded) != 0 || len(r.UpgradeNow) != 1 || r.UpgradeNow[0] != "a" {
		t.Errorf("one upgraded host: %+v", r)
	}
	// 2026.1 adds the secret security trait: 2025.2 computes lack it.
	r = UpgradeImpact(nova.Flamingo, nova.Gazpacho, hosts, nova.NewGuestList(guests...))
	if len(r.Stranded) != 1 || !strings.Contains(strings.Join(r.Stranded[0].Requires, " "), "SECRET_SECURITY_USER") {
		t.Errorf("2026.1: %+v", r)
	}
	// A flavor that already asks for host mode on 2025.2 needs the HOST
	// trait after the upgrade, not USER (Nova 2026.1 reads the flavor).
	hostMode := []nova.VTPMGuest{{ServerID: "s2", Name: "win2", Host: "a", Version: "2.0", Model: "tpm-tis", Mode: "user", FlavorSecretSecurity: "host"}}
	userHosts := []Host{{Host: "a", State: "up", Status: "enabled", Traits: dal}, {Host: "b", State: "up", Status: "enabled",
		Traits: append(append([]string{}, dal...), "COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER")}}
	r = UpgradeImpact(nova.Flamingo, nova.Gazpacho, userHosts, nova.NewGuestList(hostMode...))
	if len(r.Stranded) != 1 || !strings.Contains(strings.Join(r.Stranded[0].Requires, " "), "SECRET_SECURITY_HOST") {
		t.Errorf("host mode from the flavor: %+v", r.Stranded)
	}
	// A host that is down counts for nothing.
	hosts[1].State = "down"
	if r = UpgradeImpact(nova.Zed, nova.Zed, hosts, nova.NewGuestList(guests...)); len(r.Stranded) != 1 {
		t.Errorf("only a down host left: %+v", r)
	}
}
