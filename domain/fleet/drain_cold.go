package fleet

import (
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// The cold-migration clauses of a drain reason, from Nova's code:
// ssh, confirm, the caller's token, bug 2125030 on revert.

// coldNotes: what a cold migration needs and leaves behind, one short
// clause each (the reason is one line per guest).
func coldNotes(rel nova.Release, mode nova.SecretMode, src DrainHost, dest []*DrainHost) string {
	// migrate_disk_and_power_off pushes disks and the swtpm dir from the
	// source with remotefs (ssh -o BatchMode=yes, scp) as the nova-compute
	// process user, to the address prep_resize recorded: the destination's
	// [libvirt] migration_inbound_addr (default my_ip).
	notes := "; needs ssh from " + src.Host + " to the destination's migration_inbound_addr as the nova-compute user (Nova's remotefs)"
	if mode != nova.SecretDeployment {
		// _get_or_create_secret_for_vtpm on the destination: user mode
		// always reads Barbican, host mode too as no libvirt secret is
		// there yet; vtpm.get_request_context uses the service user only
		// for deployment. migrate:host is admin-only (policies/
		// migrate_server.py), so a caller naming the destination host is
		// an admin; the words name the openstack client's option.
		notes += "; the destination reads the owner's Barbican secret with the caller's token ("
		if mode == nova.SecretHost {
			notes += "no libvirt secret there yet; "
		}
		notes += "--host is admin-only), else "
		if rel.HasSecretSecurity() {
			notes += "VTPMSecretForbidden"
		} else {
			// crypto.ensure_vtpm_secret before 2026.1 has no Forbidden
			// mapping: castellan's KeyManagerError surfaces as is.
			notes += "\"Key manager error: Forbidden\""
		}
	}
	// finish_resize leaves the migration in VERIFY_RESIZE; the source keeps
	// <inst>_resize (with a TPM copy) until confirm_resize.
	notes += "; it ends in VERIFY_RESIZE: confirm it"
	notes += revertNote(dest)
	if mode == nova.SecretHost {
		// _cleanup_resize undefines the domain, never the secret.
		notes += "; the confirm leaves a stale libvirt secret on " + src.Host
	}
	return notes
}

// revertNote: a revert instead of a confirm runs the destination's
// revert_resize, whose driver destroy deletes the secret where the
// installed Nova carries bug 2125030 (instance storage not shared): the
// destinations' host check reports decide; without them, the versions.
func revertNote(dest []*DrainHost) string {
	var carried []string
	unknown := 0
	for _, h := range dest {
		c, known := false, false
		if h.Report != nil {
			c, known = h.Report.ReportedBug(hostcheck.BugResizeRevert)
		}
		switch {
		case c:
			carried = append(carried, h.Host)
		case !known:
			unknown++
		}
	}
	const bug = "; a revert instead hits bug 2125030 (ERROR, secret deleted)"
	switch {
	case len(carried) > 0: // dest is sorted, so carried is
		return bug + " on " + someHosts(carried)
	case unknown > 0:
		if b := hostcheck.LookupBug(hostcheck.BugResizeRevert); b != nil {
			return bug + " on nova before " + strings.Join(b.Fixed, "/")
		}
	}
	return ""
}
