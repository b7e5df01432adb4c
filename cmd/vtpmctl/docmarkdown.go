package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v3"
)

// refreshDocs is the one command that regenerates docs/cli (make docs runs
// it); TestCLIReference names it when the pages drift from the commands.
const refreshDocs = "go run -tags libvirt_dlopen ./cmd/vtpmctl man --markdown --dir docs/cli"

const generatedNote = "<!-- Generated from the commands by `" + refreshDocs + "` (make docs). Do not edit. -->\n\n"

// markdownPages renders the CLI reference: a page per command, as gh's
// manual has, and an index (README.md, which GitHub shows for the folder).
// Keys are file names. No version or date: the pages change only when a
// command does.
func markdownPages(root *cli.Command) map[string]string {
	docs := docTree(root)
	pages := map[string]string{"README.md": markdownIndex(docs)}
	for _, d := range docs {
		pages[d.pageName("_")+".md"] = markdownPage(d)
	}
	return pages
}

func markdownIndex(docs []*commandDoc) string {
	b := &strings.Builder{}
	b.WriteString(generatedNote)
	b.WriteString("# vtpmctl command reference\n\n")
	b.WriteString("One page per command, generated from the commands' own `--help`. ")
	b.WriteString("Task guides are in [docs/](../README.md); output formats, schemas and exit status in [output.md](../output.md).\n\n")
	b.WriteString("| command | what it does |\n|---|---|\n")
	for _, d := range docs {
		fmt.Fprintf(b, "| [`%s`](%s.md) | %s |\n", d.path, d.pageName("_"), mdCell(d.usage))
	}
	return b.String()
}

func markdownPage(d *commandDoc) string {
	b := &strings.Builder{}
	b.WriteString(generatedNote)
	fmt.Fprintf(b, "# %s\n\n%s\n\n```\n%s\n```\n\n", d.path, mdEscape(d.usage), d.synopsis())
	if len(d.aliases) > 0 {
		fmt.Fprintf(b, "Aliases: `%s`\n\n", strings.Join(d.aliases, "`, `"))
	}
	if d.about != "" {
		b.WriteString("## Description\n\n")
		mdProse(b, d.about)
	}
	if len(d.children) > 0 {
		b.WriteString("## Commands\n\n| command | what it does |\n|---|---|\n")
		for _, c := range d.children {
			fmt.Fprintf(b, "| [`%s`](%s.md) | %s |\n", c.path, c.pageName("_"), mdCell(c.usage))
		}
		b.WriteString("\n")
	}
	if len(d.flags) > 0 {
		title := "Options"
		if d.parent == nil {
			title = "Global options"
		}
		fmt.Fprintf(b, "## %s\n\n| option | meaning |\n|---|---|\n", title)
		for _, f := range d.flags {
			fmt.Fprintf(b, "| `%s` | %s |\n", f.name, mdCell(f.usage))
		}
		b.WriteString("\n")
	}
	if d.parent != nil {
		root := d
		for root.parent != nil {
			root = root.parent
		}
		fmt.Fprintf(b, "The global options (cloud, TLS, `--timeout`, `--debug`, `-f`, `-c`) are on [%s](%s.md).\n\n", root.path, root.pageName("_"))
	}
	if len(d.formats) > 0 {
		fs := make([]string, len(d.formats))
		for i, f := range d.formats {
			fs[i] = "`" + string(f) + "`"
		}
		fmt.Fprintf(b, "## Output formats\n\n`-f` %s ([output.md](../output.md)).\n\n", strings.Join(fs, ", "))
	}
	if len(d.examples) > 0 {
		fmt.Fprintf(b, "## Examples\n\n```sh\n%s\n```\n\n", strings.Join(d.examples, "\n"))
	}
	if len(d.exit) > 0 {
		b.WriteString("## Exit status\n\n| status | meaning |\n|---|---|\n")
		for _, r := range d.exit {
			fmt.Fprintf(b, "| %s | %s |\n", r.status, mdCell(r.meaning))
		}
		b.WriteString("\n")
	}
	if d.parent != nil {
		fmt.Fprintf(b, "## See also\n\n- [%s](%s.md)\n- [all commands](README.md)\n", d.parent.path, d.parent.pageName("_"))
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// mdProse writes help prose as markdown: lines kept as they are (escaped),
// indented runs (aligned lists, a command to type) as code blocks.
func mdProse(w io.StringWriter, text string) {
	var code []string
	flush := func() {
		if code == nil {
			return
		}
		w.WriteString("\n```text\n" + strings.Join(dedent(code), "\n") + "\n```\n\n")
		code = nil
	}
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, " "):
			code = append(code, l)
		case strings.TrimSpace(l) == "":
			flush()
			w.WriteString("\n")
		default:
			flush()
			w.WriteString(mdEscape(l) + "\n")
		}
	}
	flush()
	w.WriteString("\n")
}

func dedent(lines []string) []string {
	min := -1
	for _, l := range lines {
		if n := len(l) - len(strings.TrimLeft(l, " ")); min < 0 || n < min {
			min = n
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l[min:]
	}
	return out
}

var mdEscaper = strings.NewReplacer(`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "<", "&lt;", ">", "&gt;", "&", "&amp;")

// mdEscape makes one line of help text literal markdown: no emphasis,
// link, HTML or entity, and no block (list, heading, quote) at its start.
func mdEscape(s string) string {
	s = mdEscaper.Replace(s)
	t := strings.TrimLeft(s, " ")
	if strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "+ ") || strings.HasPrefix(t, "#") {
		return `\` + t
	}
	if i := ordered(t); i > 0 {
		return t[:i] + `\` + t[i:] // "1\. " is text, "\1. " is not an escape
	}
	return s
}

// ordered is where "1. " or "1) " would start an ordered list: the index
// of its '.' or ')', else 0.
func ordered(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(s) && (s[i] == '.' || s[i] == ')') && s[i+1] == ' ' {
		return i
	}
	return 0
}

// mdCell is mdEscape for a table cell, where | ends the cell.
func mdCell(s string) string {
	return strings.ReplaceAll(mdEscape(s), "|", `\|`)
}
