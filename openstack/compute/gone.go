package compute

import (
	"context"
	"net/http"
	"strings"
	"sync"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/completeness"
	"github.com/vtpmctl/vtpmctl/internal/parallel"
)

// GoneProof is Nova's word on each server UUID asked about, and how it
// was asked: the evidence a cleanup plan may delete a secret on.
type GoneProof struct {
	// Endpoint is the compute endpoint asked: a key manager shared by
	// several regions' Novas holds secrets this one cannot speak for.
	Endpoint string
	Servers  map[string]nova.ExistenceProof
	// Blocked says why no UUID could be proven gone (not admin, a cell
	// down, the service list unreadable); none: the GETs decided.
	Blocked completeness.Gaps
}

// ProveGone asks Nova, by UUID, whether each server exists. Only a 404 to
// an admin's GET /servers/{uuid}, with every cell up before and after the
// GETs, proves one gone: Nova answers 404 to anyone else for another
// project's server, and for a down cell's server answers 500 below 2.69 or
// 404 when its mapping is queued for delete. admin is the token's admin
// role; limit bounds the GETs in flight.
func ProveGone(ctx context.Context, c *gophercloud.ServiceClient, ids []string, admin bool, limit int) GoneProof {
	p := GoneProof{Endpoint: c.ResourceBaseURL(), Servers: make(map[string]nova.ExistenceProof, len(ids))}
	if !admin {
		p.Blocked.Add(completeness.Scope, "the token has no admin role: Nova answers 404 for another project's server to anyone but an admin, so a 404 proves nothing")
	}
	if len(ids) == 0 {
		return p
	}
	if p.Blocked.Complete() {
		p.Blocked = cellsDown(ctx, c)
	}
	if !p.Blocked.Complete() {
		p.undetermined(ids, p.Blocked.String())
		return p
	}
	var mu sync.Mutex
	c = atMicroversion(c, ServerCellDownMicroversion)
	parallel.Do(ctx, len(ids), limit, func(ctx context.Context, i int) error {
		pr := serverExistence(ctx, c, ids[i])
		mu.Lock()
		p.Servers[ids[i]] = pr
		mu.Unlock()
		return nil
	})
	// A cell that went down during the GETs may have answered 404 for a
	// server queued for delete: nothing is proven then.
	if after := cellsDown(ctx, c); !after.Complete() {
		p.Blocked = after
		var gone []string
		for id, s := range p.Servers {
			if s.State == nova.ServerGone {
				gone = append(gone, id)
			}
		}
		p.undetermined(gone, "after the GETs: "+after.String())
	}
	return p
}

func (p *GoneProof) undetermined(ids []string, why string) {
	for _, id := range ids {
		p.Servers[id] = nova.ExistenceProof{State: nova.ServerUndetermined, Reason: why}
	}
}

// serverExistence is one GET /servers/{uuid} at 2.69, where a down
// cell's server is a partial record (status UNKNOWN), not a 500.
func serverExistence(ctx context.Context, c *gophercloud.ServiceClient, id string) nova.ExistenceProof {
	var body struct {
		Server struct {
			Status   string `json:"status"`
			TenantID string `json:"tenant_id"`
		} `json:"server"`
	}
	_, err := c.Get(ctx, c.ServiceURL("servers", id), &body, &gophercloud.RequestOpts{OkCodes: []int{http.StatusOK}})
	switch {
	case err == nil:
		return nova.ExistenceProof{State: nova.ServerExists, Status: body.Server.Status, ProjectID: body.Server.TenantID,
			Reason: "GET /servers/" + id + " answered the server (status " + body.Server.Status + ")"}
	case gophercloud.ResponseCodeIs(err, http.StatusNotFound):
		return nova.ExistenceProof{State: nova.ServerGone, Reason: "GET /servers/" + id + " answered 404 to an admin, every cell up"}
	}
	return nova.ExistenceProof{State: nova.ServerUndetermined, Reason: "GET /servers/" + id + " failed: " + strings.Join(strings.Fields(err.Error()), " ")}
}

// cellsDown reads the service list at 2.69, where Nova lists each
// compute service of a cell it cannot reach with status UNKNOWN (admin
// only, by Nova's default policy). No gap: every cell answered.
func cellsDown(ctx context.Context, c *gophercloud.ServiceClient) completeness.Gaps {
	var gs completeness.Gaps
	var body struct {
		Services []struct {
			Host   string `json:"host"`
			Binary string `json:"binary"`
			Status string `json:"status"`
		} `json:"services"`
	}
	c = atMicroversion(c, ServerCellDownMicroversion)
	_, err := c.Get(ctx, c.ServiceURL("os-services"), &body, &gophercloud.RequestOpts{OkCodes: []int{http.StatusOK}})
	switch {
	case gophercloud.ResponseCodeIs(err, http.StatusForbidden):
		gs.Add(completeness.Forbidden, "Nova refuses the service list (403): whether every cell is up cannot be read")
		return gs
	case gophercloud.ResponseCodeIs(err, http.StatusNotAcceptable):
		gs.Add(completeness.BelowCellDownSupport, "the compute API is older than %s: a down cell cannot be seen", ServerCellDownMicroversion)
		return gs
	case err != nil:
		gs.Add(completeness.Failed, "the service list failed: %s", strings.Join(strings.Fields(err.Error()), " "))
		return gs
	}
	var hosts []string
	for _, s := range body.Services {
		if s.Status == "UNKNOWN" {
			hosts = append(hosts, s.Host)
		}
	}
	if len(hosts) > 0 {
		gs.Add(completeness.CellDown, "Nova cannot reach the cell of %d compute service(s) (status UNKNOWN: %s)", len(hosts), strings.Join(hosts, ", "))
	}
	return gs
}
