package secrets

import (
	"context"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
)

// ConsumerRequest is one protect or unprotect run over the vTPM guests
// an audit finds: which servers (Only; nil: every guest found), and how
// to write.
type ConsumerRequest struct {
	Audit       AuditRequest
	Only        map[string]bool
	DryRun      bool
	Concurrency int
	// Confirm, when set, is asked before the first write with the secrets
	// that would change; an error ends the run with nothing written.
	Confirm func(ctx context.Context, would []vtpmsecret.ProtectAction) error
	// Writing, when set, gives the context the writes run in (a caller's
	// progress for them).
	Writing func(ctx context.Context) context.Context
}

// ProtectGuests audits the guests' secrets (consumers read, no ACLs),
// plans Nova's consumer on each guest's secret, asks Confirm, and
// registers them (none under DryRun). The release is the audit's, for
// the caller's warning.
func ProtectGuests(ctx context.Context, sess *cloud.Session, req ConsumerRequest) (vtpmsecret.ProtectResult, nova.ResolvedRelease, error) {
	a, err := consumerAudit(ctx, sess, req)
	if err != nil {
		return vtpmsecret.ProtectResult{}, a.Release, err
	}
	plan := vtpmsecret.PlanProtect(a.Facts, a.Result, req.DryRun, req.Only)
	if err := confirm(ctx, req, plan.Secrets, vtpmsecret.ActWouldRegister); err != nil {
		return plan, a.Release, err
	}
	if !req.DryRun {
		Protect(writing(ctx, req), &plan, a.KeyManager, req.Concurrency)
	}
	return plan, a.Release, nil
}

// UnprotectGuests is ProtectGuests the other way: Nova's consumer removed
// from each guest's secret, so a protected guest's delete is not refused.
func UnprotectGuests(ctx context.Context, sess *cloud.Session, req ConsumerRequest) (vtpmsecret.UnprotectResult, nova.ResolvedRelease, error) {
	a, err := consumerAudit(ctx, sess, req)
	if err != nil {
		return vtpmsecret.UnprotectResult{}, a.Release, err
	}
	plan := vtpmsecret.PlanUnprotect(a.Facts, a.Result, req.DryRun, req.Only)
	if err := confirm(ctx, req, plan.Secrets, vtpmsecret.ActWouldRemove); err != nil {
		return plan, a.Release, err
	}
	if !req.DryRun {
		Unprotect(writing(ctx, req), &plan, a.KeyManager, req.Concurrency)
	}
	return plan, a.Release, nil
}

// consumerAudit: a consumer write needs each secret's consumers and no
// ACL.
func consumerAudit(ctx context.Context, sess *cloud.Session, req ConsumerRequest) (Audited, error) {
	ar := req.Audit
	ar.ReadACLs, ar.NeedConsumers = false, true
	return AuditSecrets(ctx, sess, ar)
}

// confirm asks req.Confirm about the rows that would act, when any would.
func confirm(ctx context.Context, req ConsumerRequest, rows []vtpmsecret.ProtectAction, act vtpmsecret.Act) error {
	if req.Confirm == nil {
		return nil
	}
	var would []vtpmsecret.ProtectAction
	for _, r := range rows {
		if r.Action == act {
			would = append(would, r)
		}
	}
	if len(would) == 0 {
		return nil
	}
	return req.Confirm(ctx, would)
}

func writing(ctx context.Context, req ConsumerRequest) context.Context {
	if req.Writing == nil {
		return ctx
	}
	return req.Writing(ctx)
}
