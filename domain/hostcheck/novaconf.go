package hostcheck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/ini.v1"
)

// NovaConf is nova.conf read with oslo.config's semantics: several files,
// then a config dir's *.conf in name order, the later value winning; a key
// repeated in one file keeps its last value.
type NovaConf struct {
	values map[string]map[string]confValue
	Files  []string // files read, in order
}

type confValue struct {
	value, file string
	line        int
}

// ConfError is a malformed config file: file:line and what was expected.
type ConfError struct {
	File string
	Line int
	Msg  string
}

func (e *ConfError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// LoadNovaConf reads files then dir (both may be empty) below root.
// Missing files named explicitly are an error; a missing dir is not.
func LoadNovaConf(root string, files []string, dir string) (*NovaConf, error) {
	c := &NovaConf{values: map[string]map[string]confValue{}}
	all := append([]string{}, files...)
	if dir != "" {
		// listed below the root, named as on the host
		if rd, err := resolve(root, dir); err == nil {
			entries, _ := os.ReadDir(rd)
			var names []string
			for _, e := range entries {
				if strings.HasSuffix(e.Name(), ".conf") {
					names = append(names, e.Name())
				}
			}
			sort.Strings(names)
			for _, n := range names {
				all = append(all, filepath.Join(dir, n))
			}
		}
	}
	for _, f := range all {
		if err := c.load(root, f); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *NovaConf) load(root, name string) error {
	path := under(root, name)
	data, err := readFile(root, name)
	if err != nil {
		return &ConfError{File: path, Msg: err.Error()}
	}
	return c.parse(path, data)
}

// parse adds one file's text, named path, over what was read before.
func (c *NovaConf) parse(path string, data []byte) error {
	f, err := ini.LoadSources(ini.LoadOptions{AllowPythonMultilineValues: true, IgnoreInlineComment: true, AllowShadows: true,
		SkipUnrecognizableLines: false}, data)
	if err != nil {
		return parseError(path, data, err)
	}
	c.Files = append(c.Files, path)
	lines := keyLines(data)
	for _, sec := range f.Sections() {
		name := sec.Name()
		if c.values[name] == nil {
			c.values[name] = map[string]confValue{}
		}
		for _, k := range sec.Keys() {
			v := k.Value()
			if vals := k.ValueWithShadows(); len(vals) > 0 { // ini gives none for an empty value
				v = vals[len(vals)-1]
			}
			key := strings.ReplaceAll(k.Name(), "-", "_")
			c.values[name][key] = confValue{value: v, file: path, line: lines[name+"\x00"+k.Name()]}
		}
	}
	return nil
}

var iniErrText = regexp.MustCompile(`^(key-value delimiter not found|unclosed section): (.*)$`)

// parseError turns ini's message into file:line and what was expected.
func parseError(path string, data []byte, err error) error {
	m := iniErrText.FindStringSubmatch(strings.TrimSpace(err.Error()))
	if m == nil {
		return &ConfError{File: path, Msg: err.Error()}
	}
	line := 0
	for i, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == strings.TrimSpace(m[2]) {
			line = i + 1
			break
		}
	}
	want := "expected \"key = value\", a [section] header, or a comment"
	if m[1] == "unclosed section" {
		want = "expected a section header like [libvirt]"
	}
	return &ConfError{File: path, Line: line, Msg: fmt.Sprintf("%q: %s", strings.TrimSpace(m[2]), want)}
}

// keyLines maps "section\x00key" to the line of the key's last setting
// (it wins), in one pass: a per-key scan was quadratic in the keys.
func keyLines(data []byte) map[string]int {
	out := map[string]int{}
	cur := "DEFAULT"
	for i, l := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
			cur = strings.TrimSpace(t[1 : len(t)-1])
			continue
		}
		if t == "" || t[0] == '#' || t[0] == ';' || l[0] == ' ' || l[0] == '\t' {
			continue
		}
		k, _, ok := strings.Cut(t, "=")
		if !ok {
			k, _, ok = strings.Cut(t, ":")
		}
		if ok {
			out[cur+"\x00"+strings.TrimSpace(k)] = i + 1
		}
	}
	return out
}

// Get returns a value: the group's own, else [DEFAULT]'s only for DEFAULT
// options (oslo does not fall back across groups).
func (c *NovaConf) Get(section, key string) (string, bool) {
	if c == nil { // no file read: every option has its default
		return "", false
	}
	v, ok := c.values[section][key]
	return strings.TrimSpace(v.value), ok
}

// Where tells where a value came from, "file:line", for messages.
func (c *NovaConf) Where(section, key string) string {
	if c == nil {
		return "default"
	}
	v, ok := c.values[section][key]
	if !ok {
		return "default"
	}
	return fmt.Sprintf("%s:%d", v.file, v.line)
}

// String returns a value or its default.
func (c *NovaConf) String(section, key, def string) string {
	if v, ok := c.Get(section, key); ok {
		return v
	}
	return def
}

// Bool reads an oslo Boolean: 1/t/true/on/y/yes and 0/f/false/off/n/no, any case.
func (c *NovaConf) Bool(section, key string, def bool) (bool, error) {
	v, ok := c.Get(section, key)
	if !ok {
		return def, nil
	}
	switch strings.ToLower(v) {
	case "1", "t", "true", "on", "y", "yes":
		return true, nil
	case "0", "f", "false", "off", "n", "no":
		return false, nil
	}
	x := c.values[section][key]
	return def, &ConfError{File: x.file, Line: x.line, Msg: fmt.Sprintf("[%s] %s = %q: expected a boolean (true/false, yes/no, on/off, 1/0)", section, key, v)}
}

// List reads an oslo List: comma-separated, spaces trimmed.
func (c *NovaConf) List(section, key string, def []string) []string {
	v, ok := c.Get(section, key)
	if !ok {
		return def
	}
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// files read, none for a nil NovaConf.
func (c *NovaConf) files() []string {
	if c == nil {
		return nil
	}
	return c.Files
}

// under joins a path below root ("" or "/" is the live system).
func under(root, p string) string {
	if root == "" || root == "/" {
		return p
	}
	return filepath.Join(root, p)
}
