package vtpmsecret

import (
	"fmt"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// UndeterminedInstances are the instance UUIDs of the orphans a partial
// server read left undetermined, each once: what Nova is asked by UUID.
func UndeterminedInstances(r Result) []string {
	seen := map[string]bool{}
	var out []string
	for _, o := range r.Orphans {
		if o.Kind == OrphanUndetermined && IsUUID(o.InstanceID) && !seen[o.InstanceID] {
			seen[o.InstanceID] = true
			out = append(out, o.InstanceID)
		}
	}
	return out
}

// SettleUndetermined applies Nova's word by UUID to the orphans a
// project-scoped server read could not decide (their server may be
// another project's): a server Nova proved gone makes its secrets orphans,
// one that exists makes them live (its server is in a project not read),
// anything else leaves them undetermined with Nova's reason added. The
// summary's counts follow. Pure.
func SettleUndetermined(r *Result, proof ServerProof) {
	for i := range r.Orphans {
		o := &r.Orphans[i]
		if o.Kind != OrphanUndetermined {
			continue
		}
		ex, asked := proof.Servers[o.InstanceID]
		switch {
		case !asked:
			if !proof.Blocked.Complete() {
				o.Reason += "; not asked of Nova by UUID: " + proof.Blocked.String()
			}
			continue
		case ex.State == nova.ServerGone:
			o.Kind = OrphanGone
			o.Reason = "instance " + o.InstanceID + " no longer exists: Nova answered 404 to an admin's GET by UUID, every cell up"
			if len(proof.Regions) > 0 {
				o.Reason += ", in every region sharing the key manager (" + strings.Join(regionNames(proof.Regions), ", ") + ")"
			}
		case ex.State == nova.ServerExists && ex.Region != "":
			o.Kind, o.Live, o.Region = OrphanLive, true, ex.Region
			o.Reason = fmt.Sprintf("its server exists in region %s, project %s (status %s): the key manager is shared by several regions; audit there", ex.Region, ex.ProjectID, ex.Status)
		case ex.State == nova.ServerExists:
			o.Kind, o.Live = OrphanLive, true
			o.Reason = fmt.Sprintf("its server exists in project %s (status %s), which was not read: audit that project", ex.ProjectID, ex.Status)
		default:
			o.Reason += "; Nova by UUID: " + ex.Reason
			continue
		}
		if len(o.Consumers) > 0 {
			o.Reason += protectedBy(o.Consumers)
		}
	}
	r.Summary.recountOrphans(r.Orphans)
}
