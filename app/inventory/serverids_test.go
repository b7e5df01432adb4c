package inventory

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/completeness"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// ListIDs: one all-projects list, page by page at 2.69 (2.47 where Nova
// refuses it), keeping the IDs; a partial record is a server that exists
// and a gap (a cell down), a list below 2.69 a gap, a list that fails an
// error that keeps what was read.
func TestListIDs(t *testing.T) {
	const a, b, p = "aaaaaaaa-0000-4000-8000-000000000001", "bbbbbbbb-0000-4000-8000-000000000002", "cccccccc-0000-4000-8000-000000000003"
	server := func(id string) map[string]any {
		return map[string]any{"id": id, "status": "ACTIVE", "metadata": map[string]any{"k": "v"}, "flavor": map[string]any{"original_name": "f", "extra_specs": map[string]any{}}}
	}
	const list = "GET /compute/v2.1/servers/detail?all_tenants=true&limit=1000&[marker=*]"
	page := func(c *fakecloud.Cloud, mv string, second func(w http.ResponseWriter)) {
		c.Handle(list+" [compute "+mv+"]", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("marker") == "" {
				fakecloud.Reply(w, 200, map[string]any{"servers": []any{server(a)},
					"servers_links": fakecloud.Links(c.URL + "/compute/v2.1/servers/detail?all_tenants=true&limit=1000&marker=" + a)})
				return
			}
			second(w)
		}).Times(2)
	}
	t.Run("two pages, a partial record", func(t *testing.T) {
		c := fakecloud.New(t)
		page(c, "2.69", func(w http.ResponseWriter) {
			fakecloud.Reply(w, 200, map[string]any{"servers": []any{server(b), map[string]any{"id": p, "status": "UNKNOWN"}}})
		})
		ids, gaps, err := ListIDs(context.Background(), c.ServiceClient("compute/v2.1"))
		if err != nil || ids.Len() != 3 || !ids.Has(a) || !ids.Has(b) || !ids.Has(p) || ids.Has("dddddddd-0000-4000-8000-000000000004") {
			t.Fatalf("%d id(s), %v", ids.Len(), err)
		}
		if len(gaps) != 1 || gaps[0].Kind != completeness.CellDown {
			t.Errorf("gaps %v", gaps)
		}
	})
	t.Run("below 2.69", func(t *testing.T) {
		c := fakecloud.New(t)
		c.Handle(list+" [compute 2.69]", fakecloud.JSON(406, `{"computeFault":{"code":406,"message":"Version 2.69 is not supported by the API."}}`)).Times(1)
		page(c, "2.47", func(w http.ResponseWriter) { fakecloud.Reply(w, 200, map[string]any{"servers": []any{}}) })
		ids, gaps, err := ListIDs(context.Background(), c.ServiceClient("compute/v2.1"))
		if err != nil || ids.Len() != 1 || len(gaps) != 1 || gaps[0].Kind != completeness.BelowCellDownSupport {
			t.Errorf("%d id(s), gaps %v, %v", ids.Len(), gaps, err)
		}
	})
	t.Run("the second page fails", func(t *testing.T) {
		c := fakecloud.New(t)
		page(c, "2.69", func(w http.ResponseWriter) {
			fakecloud.Reply(w, 500, map[string]any{"computeFault": map[string]any{"code": 500, "message": "Unexpected API Error."}})
		})
		ids, _, err := ListIDs(context.Background(), c.ServiceClient("compute/v2.1"))
		if err == nil || !strings.HasPrefix(err.Error(), "listing servers: ") || !ids.Has(a) {
			t.Errorf("%d id(s), %v", ids.Len(), err)
		}
	})
}
