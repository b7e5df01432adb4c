package hostcheck

import (
	"fmt"
	"regexp"
	"strings"
)

// QemuConf is libvirt's qemu.conf: `name = "string"`, `name = 1`, or a
// list in brackets that may span lines; # starts a comment.
type QemuConf struct {
	Path   string
	values map[string]string
}

var qemuKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// LoadQemuConf parses path, a file of the host mounted at root.
func LoadQemuConf(root, path string) (*QemuConf, error) {
	data, err := readFile(root, path)
	path = under(root, path)
	if err != nil {
		return nil, &ConfError{File: path, Msg: err.Error()}
	}
	q := &QemuConf{Path: path, values: map[string]string{}}
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(stripComment(lines[i]))
		if t == "" {
			continue
		}
		k, v, ok := strings.Cut(t, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || !qemuKey.MatchString(k) {
			return nil, &ConfError{File: path, Line: i + 1, Msg: fmt.Sprintf("%q: expected name = value", t)}
		}
		switch {
		case strings.HasPrefix(v, "["):
			start := i
			for !strings.Contains(v, "]") {
				i++
				if i >= len(lines) {
					return nil, &ConfError{File: path, Line: start + 1, Msg: fmt.Sprintf("list of %s: expected a closing ]", k)}
				}
				v += strings.TrimSpace(stripComment(lines[i]))
			}
			q.values[k] = v
		case strings.HasPrefix(v, `"`):
			if len(v) < 2 || !strings.HasSuffix(v, `"`) {
				return nil, &ConfError{File: path, Line: i + 1, Msg: fmt.Sprintf("%s: expected a string in double quotes", k)}
			}
			q.values[k] = v[1 : len(v)-1]
		default:
			if strings.Trim(v, "-0123456789") != "" || v == "" {
				return nil, &ConfError{File: path, Line: i + 1, Msg: fmt.Sprintf("%s = %s: expected a string in double quotes, a number or a [list]", k, v)}
			}
			q.values[k] = v
		}
	}
	return q, nil
}

func stripComment(l string) string {
	in := false
	for i, r := range l {
		switch r {
		case '"':
			in = !in
		case '#':
			if !in {
				return l[:i]
			}
		}
	}
	return l
}

// String returns a value or its default.
func (q *QemuConf) String(key, def string) string {
	if q == nil {
		return def
	}
	if v, ok := q.values[key]; ok {
		return v
	}
	return def
}
