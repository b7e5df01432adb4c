package secrets

import (
	"context"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/parallel"
	"github.com/vtpmctl/vtpmctl/openstack/barbican"
)

// Protect registers Nova's consumer on every secret the plan
// (vtpmsecret.PlanProtect) has for it, with a token of the secret's
// project, limit at once. A failed write is that secret's, reported on
// it.
func Protect(ctx context.Context, r *vtpmsecret.ProtectResult, km KeyManagers, limit int) {
	writeConsumers(ctx, r.Secrets, km, limit, vtpmsecret.ActWouldRegister, vtpmsecret.ActRegistered, barbican.AddConsumer)
	r.Recount()
}

// Unprotect removes Nova's consumer from every secret the plan
// (vtpmsecret.PlanUnprotect) has for it, with a token of the secret's
// project, limit at once. A failed write is that secret's, reported on
// it.
func Unprotect(ctx context.Context, r *vtpmsecret.UnprotectResult, km KeyManagers, limit int) {
	writeConsumers(ctx, r.Secrets, km, limit, vtpmsecret.ActWouldRemove, vtpmsecret.ActRemoved, barbican.RemoveConsumer)
	r.Recount()
}

// writeConsumers runs write (add or remove Nova's consumer) on every
// secret whose action is planned, with a token of the secret's project,
// limit at once: the action becomes done, or ActFailed with the error on
// that secret. What protect and unprotect share.
func writeConsumers(ctx context.Context, secrets []vtpmsecret.ProtectAction, km KeyManagers, limit int,
	planned, done vtpmsecret.Act, write func(context.Context, *gophercloud.ServiceClient, string, vtpmsecret.Consumer) error) {
	var idx []int
	for i, a := range secrets {
		if a.Action == planned {
			idx = append(idx, i)
		}
	}
	parallel.Do(ctx, len(idx), limit, func(ctx context.Context, j int) error {
		a := &secrets[idx[j]]
		c, err := km(ctx, a.ProjectID)
		if err == nil {
			err = write(ctx, c, a.SecretID, a.Consumer())
		}
		if err != nil {
			a.Action, a.Detail = vtpmsecret.ActFailed, oneLine(err)
		} else {
			a.Action = done
		}
		return nil
	})
}
