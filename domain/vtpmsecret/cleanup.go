package vtpmsecret

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/completeness"
	"github.com/vtpmctl/vtpmctl/internal/quote"
)

// CleanupSchema names the JSON of the cleanup plan (secrets audit's).
// Version 2: a step's age is age_seconds, a number (version 1: "age", a
// string such as "67d").
const CleanupSchema = "vtpmctl.secrets-cleanup-plan/2"

// CleanupAction is what a cleanup plan does with an orphan.
type CleanupAction string

const (
	CleanupDelete CleanupAction = "delete"
	CleanupKeep   CleanupAction = "keep"
)

// CleanupStep is one orphan and what the plan does with it. Command is
// the delete line, only for a secret whose instance is gone.
type CleanupStep struct {
	SecretID   string     `json:"secret_id"`
	SecretRef  string     `json:"secret_ref,omitempty"`
	InstanceID string     `json:"instance_id"`
	ProjectID  string     `json:"project_id"`
	CreatorID  string     `json:"creator_id"`
	AgeSeconds int64      `json:"age_seconds"` // since the secret was created
	Kind       OrphanKind `json:"kind"`
	// Existence is Nova's answer for the instance (a candidate's only).
	Existence nova.Existence `json:"existence,omitempty"`
	Action    CleanupAction  `json:"action"`
	Reason    string         `json:"reason"`
	Command   string         `json:"command,omitempty"`
	// comment is the script's line(s) for this step, in Nova's words.
	comment string
}

// CleanupPlan is the cleanup plan: the orphans and the delete commands
// for those whose instance Nova says is gone. Nothing is deleted.
type CleanupPlan struct {
	Schema     string    `json:"schema"`
	Cloud      string    `json:"cloud,omitempty"`
	Generated  time.Time `json:"generated"`
	SecretsURL string    `json:"secrets_url"`
	// NotAuditable projects: their orphans are not in the plan.
	NotAuditable map[string]NotAuditable `json:"not_auditable"`
	// Proof says how each delete was proven, and what blocked the rest.
	Proof CleanupProof  `json:"proof"`
	Steps []CleanupStep `json:"steps"`
}

// CleanupProof is what the plan's deletes rest on: Nova's answer for
// each candidate instance's UUID, and the reads that were partial.
type CleanupProof struct {
	// Method is how an instance is proven gone, in words.
	Method string `json:"method"`
	// ComputeEndpoint is the Nova asked first: the session's region's.
	ComputeEndpoint string `json:"compute_endpoint,omitempty"`
	// Regions, when the catalog lists the key manager's endpoint under
	// several regions, are those regions, in the order their Novas were
	// asked: an instance is gone only when every one answered 404.
	Regions      []RegionAsked `json:"regions,omitempty"`
	Asked        int           `json:"asked"`
	Gone         int           `json:"gone"`
	Exists       int           `json:"exists"`
	Undetermined int           `json:"undetermined"`
	// Blocked says why Nova could not be asked (no admin role, a cell
	// down, a region's Nova sharing the key manager not reached): every
	// candidate it concerns is then undetermined.
	Blocked completeness.Gaps `json:"blocked,omitempty"`
	// Incomplete are the audit's partial reads (server list, projects).
	Incomplete completeness.Gaps `json:"incomplete,omitempty"`
}

// ProofMethod is the one way a plan proves an instance gone.
const ProofMethod = "GET /servers/{uuid} at compute API 2.69 answered 404 to a token with the admin role, while the service list (2.69) showed every cell up, before and after"

// cleanupCandidate is whether a step needs Nova's word on its instance.
func cleanupCandidate(o Orphan) bool {
	return (o.Kind == OrphanGone || o.Kind == OrphanUndetermined) && IsUUID(o.ID) && IsUUID(o.InstanceID)
}

// ServerProof is Nova's word on each server UUID asked about, and how it
// was asked (what compute.ProveGone answers, or AcrossRegions of several
// regions' answers).
type ServerProof struct {
	// Endpoint is the compute endpoint asked (the first, of several).
	Endpoint string
	Servers  map[string]nova.ExistenceProof
	// Blocked says why no UUID could be proven gone (not admin, a cell
	// down, the service list unreadable, a region's Nova not reached);
	// none: the GETs decided.
	Blocked completeness.Gaps
	// Regions: every region whose catalog lists the key manager's
	// endpoint, when there are several (AcrossRegions).
	Regions []RegionAsked
}

// Origin is where an audit read its secrets: the cloud's name (from
// clouds.yaml; "" when not named) and the key manager's own secrets
// endpoint, ending in /.
type Origin struct {
	Cloud      string
	SecretsURL string
}

// CleanupCandidates are the instance UUIDs to ask Nova about.
func CleanupCandidates(r Result) []string {
	seen := map[string]bool{}
	var out []string
	for _, o := range r.Orphans {
		if cleanupCandidate(o) && !seen[o.InstanceID] {
			seen[o.InstanceID] = true
			out = append(out, o.InstanceID)
		}
	}
	sort.Strings(out)
	return out
}

// NewCleanupPlan decides each orphan's step from Nova's answers. Only a
// secret whose instance Nova proved gone gets a delete command, and only
// when every value in it was checked (a UUID, the key manager's own
// endpoint), never a name or a server-supplied URL.
func NewCleanupPlan(r Result, at Origin, proof ServerProof, now time.Time) CleanupPlan {
	p := CleanupPlan{Schema: CleanupSchema, Cloud: at.Cloud, Generated: now.UTC(), SecretsURL: at.SecretsURL, NotAuditable: r.NotAuditable, Steps: []CleanupStep{},
		Proof: CleanupProof{Method: ProofMethod, ComputeEndpoint: proof.Endpoint, Regions: proof.Regions, Blocked: proof.Blocked, Incomplete: r.Incomplete}}
	if p.NotAuditable == nil {
		p.NotAuditable = map[string]NotAuditable{}
	}
	everyRegion := ""
	if len(proof.Regions) > 0 {
		everyRegion = " in every region sharing the key manager: " + strings.Join(regionNames(proof.Regions), ", ")
	}
	for _, or := range r.Orphans {
		st := CleanupStep{SecretID: or.ID, InstanceID: or.InstanceID, ProjectID: or.ProjectID, CreatorID: or.CreatorID, AgeSeconds: or.AgeSeconds, Kind: or.Kind, Action: CleanupKeep, Reason: or.Reason}
		switch {
		case or.Kind == OrphanLive:
			st.comment = fmt.Sprintf("not deleted, its server exists: %s (%s)", or.ID, or.Reason)
		case or.Kind == OrphanDuplicate:
			st.comment = fmt.Sprintf("duplicate, not deleted: %s (instance %s) — check the domain's <encryption secret> first", or.ID, or.InstanceID)
		case !cleanupCandidate(or):
			continue // never a step for anything but Nova's own form
		}
		if or.Kind == OrphanLive || or.Kind == OrphanDuplicate {
			p.Steps = append(p.Steps, st)
			continue
		}
		p.Proof.Asked++
		ex, asked := proof.Servers[or.InstanceID]
		if !asked {
			ex = nova.ExistenceProof{State: nova.ServerUndetermined, Reason: "Nova was not asked"}
		}
		st.Existence, st.Reason = ex.State, ex.Reason
		switch {
		case ex.State == nova.ServerExists:
			p.Proof.Exists++
			st.Kind = OrphanLive
			st.comment = fmt.Sprintf("not deleted, its server exists: %s (instance %s, project %s, status %s%s)", or.ID, or.InstanceID, ex.ProjectID, ex.Status, inRegion(ex))
		case ex.State != nova.ServerGone:
			p.Proof.Undetermined++
			st.Kind = OrphanUndetermined
			st.comment = fmt.Sprintf("undetermined, not deleted: %s (instance %s): %s", or.ID, or.InstanceID, ex.Reason)
		case len(or.Consumers) > 0:
			p.Proof.Gone++
			st.Kind = OrphanGone
			// Never forced: a consumer says someone relies on it.
			st.comment = fmt.Sprintf("protected, not deleted: %s (instance %s gone, %s old) has consumer(s) %s; remove the consumer first if you are sure, then delete it", or.ID, or.InstanceID, or.AgeText(), consumerList(or.Consumers))
		default:
			p.Proof.Gone++
			st.Kind = OrphanGone
			st.comment = fmt.Sprintf("instance %s gone (Nova: 404%s); created by %s, %s old", or.InstanceID, everyRegion, or.CreatorID, or.AgeText())
			st.SecretRef = at.SecretsURL + or.ID
			if quote.HasControl(at.Cloud) || quote.HasControl(or.ProjectID) {
				st.comment += "\n" + "not written: the cloud name or project ID has control characters; delete " + or.ID + " by hand"
				break
			}
			st.Action = CleanupDelete
			st.Command = deleteCommand(at.Cloud, or.ProjectID, st.SecretRef)
		}
		p.Steps = append(p.Steps, st)
	}
	return p
}

// inRegion names the region whose Nova has a server, when several were
// asked.
func inRegion(ex nova.ExistenceProof) string {
	if ex.Region == "" {
		return ""
	}
	return ", region " + ex.Region
}

// Deletes counts the delete commands.
func (p *CleanupPlan) Deletes() int {
	n := 0
	for _, s := range p.Steps {
		if s.Command != "" {
			n++
		}
	}
	return n
}
