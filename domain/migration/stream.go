package migration

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"
)

// WriteImport computes the plan and writes it VM by VM: yaml's encoder
// builds a node tree of the whole document first (about 60 KB a VM), so a
// 100,000-VM inventory would need gigabytes. Each list item is encoded on
// its own instead; the result reads back as the same Plan. ctx stops it
// between items (Ctrl-C). o.Header's lines come first, as comments.
func WriteImport(ctx context.Context, w io.Writer, vms []SourceVM, o ImportOptions, src PlanSource) (ImportSummary, error) {
	im := prepare(vms, &o)
	src.Imported = im.imported
	bw := bufio.NewWriterSize(w, 256<<10)
	pw := &planWriter{w: bw}
	pw.header(o.Header)
	pw.top(struct {
		Version int        `yaml:"version"`
		Source  PlanSource `yaml:"source,omitempty"`
	}{1, src})
	pw.list(ctx, "images", len(vms), func(i int) any { _, img := im.base(vms[i], o); return img })
	pw.list(ctx, "flavors", len(im.flavors), func(i int) any { return im.flavors[i] })
	pw.list(ctx, "vms", len(vms), func(i int) any { return im.vm(i, vms[i], o) })
	if pw.err == nil {
		pw.err = bw.Flush()
	}
	return im.sum, pw.err
}

type planWriter struct {
	w   *bufio.Writer
	err error
}

// header writes each line as a comment: who wrote the plan and what to
// run next are the caller's words (its command lines).
func (p *planWriter) header(lines []string) {
	for _, l := range lines {
		p.write("# " + strings.ReplaceAll(l, "\n", "\n# ") + "\n") // a comment stays one
	}
}

func (p *planWriter) write(s string) {
	if p.err == nil {
		_, p.err = p.w.WriteString(s)
	}
}

func (p *planWriter) top(v any) {
	if p.err != nil {
		return
	}
	b, err := marshal(v)
	if err != nil {
		p.err = err
		return
	}
	p.write(b)
}

// list writes "key:" and each item as a block sequence entry, indented as
// yaml's encoder would with SetIndent(2).
func (p *planWriter) list(ctx context.Context, key string, n int, item func(int) any) {
	if n == 0 {
		p.write(key + ": []\n")
		return
	}
	p.write(key + ":\n")
	for i := 0; i < n && p.err == nil; i++ {
		if i%1000 == 0 && ctx.Err() != nil {
			p.err = fmt.Errorf("interrupted: %w", ctx.Err())
			return
		}
		b, err := marshal(item(i))
		if err != nil {
			p.err = err
			return
		}
		lines := strings.SplitAfter(strings.TrimSuffix(b, "\n"), "\n")
		var sb strings.Builder
		for j, l := range lines {
			if j == 0 {
				sb.WriteString("  - ")
			} else {
				sb.WriteString("    ")
			}
			sb.WriteString(l)
		}
		sb.WriteString("\n")
		p.write(sb.String())
	}
}

func marshal(v any) (string, error) {
	var sb strings.Builder
	enc := yaml.NewEncoder(&sb)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	if err := enc.Close(); err != nil {
		return "", err
	}
	return sb.String(), nil
}
