package plan

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/migration"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// statefulGlance is one image whose properties PATCH really changes,
// decoding each path as Glance does (RFC 6901); a path of more than one
// segment fails the test: a plan must never reach into the image.
type statefulGlance struct {
	t     *testing.T
	mu    sync.Mutex
	props map[string]string
}

const convergeImageID = "6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d20"

func (g *statefulGlance) image() map[string]any {
	img := map[string]any{"id": convergeImageID, "name": "win-golden", "status": "active", "visibility": "private", "tags": []string{}}
	for k, v := range g.props {
		img[k] = v
	}
	return img
}

func (g *statefulGlance) list(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"images": []any{g.image()}})
	fakecloud.JSON(200, string(b))(w, r)
}

func (g *statefulGlance) patch(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	var ops []struct{ Op, Path, Value string }
	if err := json.NewDecoder(r.Body).Decode(&ops); err != nil {
		g.t.Errorf("patch body: %v", err)
	}
	for _, op := range ops {
		seg := strings.TrimPrefix(op.Path, "/")
		if strings.Contains(seg, "/") || seg == op.Path {
			g.t.Errorf("patch path %q reaches into the image", op.Path)
			continue
		}
		key := strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
		switch op.Op {
		case "add", "replace":
			g.props[key] = op.Value
		case "remove":
			delete(g.props, key)
		}
	}
	b, _ := json.Marshal(g.image())
	fakecloud.JSON(200, string(b))(w, r)
}

// TestApplyConvergesOnEscapedKeys: a property key with "/" and "~" is
// written as one property and read back as it, so a second diff has
// nothing to do and a second apply sends no write. Strict: any request
// but the image list, its PATCH and the flavor list fails the test.
func TestApplyConvergesOnEscapedKeys(t *testing.T) {
	c := fakecloud.New(t)
	g := &statefulGlance{t: t, props: map[string]string{"os_distro": "windows"}}
	c.Handle("GET /image/v2/images?limit=100&name=eq:win-golden", g.list)
	c.Handle("PATCH /image/v2/images/"+convergeImageID, g.patch)
	c.Handle("GET /compute/v2.1/flavors/detail?is_public=None&limit=1000 [compute >=2.61]", fakecloud.JSON(200, `{"flavors":[]}`))
	gl, cc := c.ServiceClient("image"), c.ServiceClient("compute/v2.1")
	p := &migration.Plan{Version: 1, Images: []migration.PlanImage{{Name: "win-golden", Properties: map[string]string{
		"tags/-": "yes", "vendor~x/a": "1", "os_distro": "windows"}}}}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	diff := func() *Convergence {
		conv, err := DiffPlan(ctx, gl, cc, p, nova.Gazpacho)
		if err != nil || len(conv.Images) != 1 {
			t.Fatalf("diff: %v %+v", err, conv)
		}
		return conv
	}
	conv := diff()
	if w := nova.Writes(conv.Images[0].Changes); len(w) != 2 {
		t.Fatalf("first diff: %+v", w)
	}
	ApplyConvergence(ctx, gl, cc, conv, nova.Gazpacho)
	if conv.Failed() != 0 || g.props["tags/-"] != "yes" || g.props["vendor~x/a"] != "1" {
		t.Fatalf("apply: %v, cloud now %v", conv.Images[0].Err, g.props)
	}
	again := diff()
	if w := nova.Writes(again.Images[0].Changes); len(w) != 0 {
		t.Errorf("rerun must have nothing to do: %+v", w)
	}
	ApplyConvergence(ctx, gl, cc, again, nova.Gazpacho)
	if n := c.Count("PATCH"); n != 1 {
		t.Errorf("%d PATCHes, want 1", n)
	}
	for _, r := range c.Requests {
		if !strings.HasPrefix(r, "GET /image/v2/images?") && r != "PATCH /image/v2/images/"+convergeImageID && !strings.HasPrefix(r, "GET /compute/v2.1/flavors/detail") {
			t.Errorf("unexpected request %s", r)
		}
	}
}
