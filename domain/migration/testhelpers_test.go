package migration

import (
	"bufio"
	"context"
	"io"
)

// Helpers only the tests call: the production entry points are
// elsewhere in the package.

// WritePlan writes a plan held in memory, in the same form, below the
// header's lines as comments.
func WritePlan(w io.Writer, p *Plan, header ...string) error {
	bw := bufio.NewWriter(w)
	pw := &planWriter{w: bw}
	pw.header(header)
	pw.top(struct {
		Version int        `yaml:"version"`
		Source  PlanSource `yaml:"source,omitempty"`
	}{p.Version, p.Source})
	ctx := context.Background()
	pw.list(ctx, "images", len(p.Images), func(i int) any { return p.Images[i] })
	pw.list(ctx, "flavors", len(p.Flavors), func(i int) any { return p.Flavors[i] })
	pw.list(ctx, "vms", len(p.VMs), func(i int) any { return p.VMs[i] })
	if pw.err == nil {
		pw.err = bw.Flush()
	}
	return pw.err
}
