package fleet

import (
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// revertRep is a destination's host check report whose RESIZE-REVERT
// check reads as `host check` writes it: carried, fixed, or undecided,
// with its verdict (only the verdict decides).
func revertRep(status hostcheck.Status, carried hostcheck.TriState, msg string) *hostcheck.Report {
	r := rep(nova.Epoxy, "", nil)
	r.Checks = []hostcheck.Check{{ID: hostcheck.ResizeRevertCheck, Status: status, Message: msg,
		Bug: &hostcheck.BugVerdict{ID: hostcheck.BugResizeRevert, Carried: carried}}}
	return r
}

// TestDecideDrainCold: what a cold migration needs and leaves behind, per
// mode and release, from Nova's code: remotefs pushes over ssh from the
// source; the destination reads Barbican with the caller's token in user
// AND host mode (no libvirt secret there yet), the service user only in
// deployment; before 2026.1 a denied read is castellan's raw error; the
// move waits in VERIFY_RESIZE; a revert deletes the secret where the
// destination's Nova carries bug 2125030; host mode leaves the source's
// libvirt secret after confirm.
func TestDecideDrainCold(t *testing.T) {
	carried := revertRep(hostcheck.Warn, hostcheck.Yes, `the installed Nova carries bug 2125030: resize revert of a vTPM guest ends in ERROR, "Refusing to create an emulated TPM with no secret", when it reverts ...`)
	fixed := revertRep(hostcheck.Pass, hostcheck.No, "resize revert keeps a vTPM guest's secret (deleted only with the instance)")
	undecided := revertRep(hostcheck.Warn, hostcheck.Unknown, "Nova 2025.1 reverts vTPM moves to another host (non-shared instance storage) safely only from 31.3.0/32.2.0 on, and no installed Nova code is readable here to tell")
	src := DrainHost{Host: "a", Usable: true, Traits: hostTraits}
	cases := []struct {
		name      string
		rel       nova.Release
		mode      nova.SecretMode
		others    []DrainHost
		want, not []string
	}{
		{"host mode: the caller's token too, stale secret on the source", nova.Gazpacho, nova.SecretHost,
			// c's 2025.2 compute refuses live migration (VTPMOldCompute)
			[]DrainHost{{Host: "b", Usable: true, Traits: hostTraits}, {Host: "c", Usable: true, Traits: oldTraits, Report: rep(nova.Flamingo, "", nil)}},
			[]string{"needs ssh from a to the destination's migration_inbound_addr as the nova-compute user",
				"the destination reads the owner's Barbican secret with the caller's token (no libvirt secret there yet; --host is admin-only), else VTPMSecretForbidden",
				"ends in VERIFY_RESIZE: confirm it", "the confirm leaves a stale libvirt secret on a"},
			[]string{"Key manager error"}},
		{"user mode 2026.2", nova.Hibiscus, nova.SecretUser,
			[]DrainHost{{Host: "b", Usable: true, Traits: hostTraits}},
			[]string{"with the caller's token (--host is admin-only), else VTPMSecretForbidden", "VERIFY_RESIZE"},
			[]string{"stale libvirt secret", "no libvirt secret there yet"}},
		{"2025.1: raw castellan error, no VTPMSecretForbidden", nova.Epoxy, "",
			[]DrainHost{{Host: "b", Usable: true, Traits: oldTraits}},
			[]string{`with the caller's token (--host is admin-only), else "Key manager error: Forbidden"`},
			[]string{"VTPMSecretForbidden", "stale libvirt secret"}},
		{"deployment: the service user's token, no stale secret", nova.Gazpacho, nova.SecretDeployment,
			[]DrainHost{{Host: "b", Usable: true, Traits: append(append([]string{}, oldTraits...), "COMPUTE_SECURITY_TPM_SECRET_SECURITY_DEPLOYMENT")}},
			[]string{"needs ssh from a", "VERIFY_RESIZE"},
			[]string{"caller's token", "stale libvirt secret"}},
		{"no destination report: the fixed versions", nova.Epoxy, "",
			[]DrainHost{{Host: "b", Usable: true, Traits: oldTraits}},
			[]string{"a revert instead hits bug 2125030 (ERROR, secret deleted) on nova before 31.3.0/32.2.0/33.0.0"}, nil},
		{"destination reports: carried on c only", nova.Epoxy, "",
			[]DrainHost{{Host: "c", Usable: true, Traits: oldTraits, Report: carried}, {Host: "b", Usable: true, Traits: oldTraits, Report: fixed}},
			[]string{"a revert instead hits bug 2125030 (ERROR, secret deleted) on c"}, []string{"nova before"}},
		{"every destination fixed: no revert warning", nova.Epoxy, "",
			[]DrainHost{{Host: "b", Usable: true, Traits: oldTraits, Report: fixed}},
			[]string{"VERIFY_RESIZE"}, []string{"2125030"}},
		{"a destination undecided: the fixed versions", nova.Epoxy, "",
			[]DrainHost{{Host: "b", Usable: true, Traits: oldTraits, Report: fixed}, {Host: "c", Usable: true, Traits: oldTraits, Report: undecided}},
			[]string{"on nova before 31.3.0/32.2.0/33.0.0"}, nil},
		{"a carrying host that is no destination is not named", nova.Epoxy, "",
			[]DrainHost{{Host: "b", Usable: true, Traits: oldTraits, Report: fixed}, {Host: "c", Traits: oldTraits, Report: carried}},
			nil, []string{"2125030"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, why := DecideDrain(c.rel, DrainGuest{ServerID: drainUUID, Mode: c.mode, Version: "2.0", Model: "tpm-tis"}, src, append([]DrainHost{src}, c.others...))
			if got != DrainCold {
				t.Fatalf("got %s %q, want %s", got, why, DrainCold)
			}
			reasonHas(t, why, c.want, c.not)
		})
	}
}
