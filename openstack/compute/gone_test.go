package compute

import (
	"context"
	"net/http"
	"reflect"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/completeness"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// ProveGone calls a server gone only on an admin's 404 with every cell
// up before and after: every other answer, and every state of the cloud
// in which a 404 proves nothing, leaves the UUID undetermined (never
// gone). A server that answers, partial record included, exists.
func TestProveGone(t *testing.T) {
	const gone, live, down, flaky = "00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002",
		"00000000-0000-4000-8000-000000000003", "00000000-0000-4000-8000-000000000004"
	const services = "GET /compute/v2.1/os-services [compute 2.69]"
	up := fakecloud.JSON(200, `{"services":[{"host":"c1","binary":"nova-compute","status":"enabled","state":"up"}]}`)
	cellDown := fakecloud.JSON(200, `{"services":[{"host":"c1","binary":"nova-compute","status":"enabled","state":"up"},{"host":"c9","binary":"nova-compute","status":"UNKNOWN"}]}`)
	get := func(id string) string { return "GET /compute/v2.1/servers/" + id + " [compute 2.69]" }
	all := map[string]http.HandlerFunc{
		get(gone):  fakecloud.JSON(404, `{"itemNotFound":{"code":404,"message":"Instance could not be found."}}`),
		get(live):  fakecloud.JSON(200, `{"server":{"id":"`+live+`","status":"ACTIVE","tenant_id":"p2"}}`),
		get(down):  fakecloud.JSON(200, `{"server":{"id":"`+down+`","status":"UNKNOWN","tenant_id":"p3"}}`),
		get(flaky): fakecloud.JSON(503, `{"computeFault":{"code":503,"message":"Service Unavailable"}}`),
	}
	ids := []string{gone, live, down, flaky}
	for _, c := range []struct {
		name     string
		admin    bool
		services http.HandlerFunc // nil: not asked
		gets     bool
		// after: the service list's answer after the GETs (nil: not asked again)
		after   http.HandlerFunc
		want    map[string]nova.Existence
		blocked []completeness.Kind
	}{
		{"admin, every cell up", true, up, true, up,
			map[string]nova.Existence{gone: nova.ServerGone, live: nova.ServerExists, down: nova.ServerExists, flaky: nova.ServerUndetermined}, nil},
		{"not admin: Nova's 404 hides other projects' servers", false, nil, false, nil,
			map[string]nova.Existence{gone: nova.ServerUndetermined, live: nova.ServerUndetermined, down: nova.ServerUndetermined, flaky: nova.ServerUndetermined},
			[]completeness.Kind{completeness.Scope}},
		{"a cell down", true, cellDown, false, nil,
			map[string]nova.Existence{gone: nova.ServerUndetermined, live: nova.ServerUndetermined, down: nova.ServerUndetermined, flaky: nova.ServerUndetermined},
			[]completeness.Kind{completeness.CellDown}},
		{"the service list refused", true, fakecloud.JSON(403, `{"forbidden":{"code":403}}`), false, nil,
			map[string]nova.Existence{gone: nova.ServerUndetermined, live: nova.ServerUndetermined, down: nova.ServerUndetermined, flaky: nova.ServerUndetermined},
			[]completeness.Kind{completeness.Forbidden}},
		{"the service list failed", true, fakecloud.JSON(500, `{"computeFault":{"code":500}}`), false, nil,
			map[string]nova.Existence{gone: nova.ServerUndetermined, live: nova.ServerUndetermined, down: nova.ServerUndetermined, flaky: nova.ServerUndetermined},
			[]completeness.Kind{completeness.Failed}},
		{"older than 2.69", true, fakecloud.JSON(406, `{"computeFault":{"code":406}}`), false, nil,
			map[string]nova.Existence{gone: nova.ServerUndetermined, live: nova.ServerUndetermined, down: nova.ServerUndetermined, flaky: nova.ServerUndetermined},
			[]completeness.Kind{completeness.BelowCellDownSupport}},
		{"a cell went down during the GETs", true, up, true, cellDown,
			map[string]nova.Existence{gone: nova.ServerUndetermined, live: nova.ServerExists, down: nova.ServerExists, flaky: nova.ServerUndetermined},
			[]completeness.Kind{completeness.CellDown}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := fakecloud.New(t)
			switch {
			case c.after != nil: // asked before the GETs and again after
				f.HandleSeq(services, c.services, c.after)
			case c.services != nil:
				f.Handle(services, c.services)
			}
			if c.gets {
				for k, v := range all {
					f.Handle(k, v)
				}
			}
			p := ProveGone(context.Background(), f.ServiceClient("compute/v2.1"), ids, c.admin, 1)
			got := map[string]nova.Existence{}
			for id, s := range p.Servers {
				got[id] = s.State
				if s.Reason == "" {
					t.Errorf("%s: no reason", id)
				}
			}
			var blocked []completeness.Kind
			for _, g := range p.Blocked {
				blocked = append(blocked, g.Kind)
			}
			if !reflect.DeepEqual(got, c.want) || !reflect.DeepEqual(blocked, c.blocked) {
				t.Errorf("got %v blocked %v\nwant %v blocked %v", got, blocked, c.want, c.blocked)
			}
			if n := p.Gone(); (n == 1) != (c.want[gone] == nova.ServerGone) {
				t.Errorf("Gone() = %d", n)
			}
		})
	}
}

// Nothing to ask: no request at all (an audit without orphans).
func TestProveGoneNothing(t *testing.T) {
	f := fakecloud.New(t) // no stub: any request fails the test
	if p := ProveGone(context.Background(), f.ServiceClient("compute/v2.1"), nil, true, 1); len(p.Servers) != 0 || !p.Blocked.Complete() {
		t.Errorf("%+v", p)
	}
}
