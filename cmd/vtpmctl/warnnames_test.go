package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// forged is a name that, printed raw, would add a line of vtpmctl's own.
const forged = "fx-win11\nvtpmctl: all checks passed"

// TestStderrNamesOneLine: a cloud object's name reaches stderr as one
// line, Go-quoted when it holds a line break, so it cannot forge a line
// (image set's stale-volume line, the changes' notes and failures).
func TestStderrNamesOneLine(t *testing.T) {
	c, _ := volumeCloud(t)
	img := c.FixtureObjects("images", "images")[0]
	img["name"] = forged
	b, _ := json.Marshal(img)
	c.Handle("GET /image/v2/images/*", fakecloud.JSON(200, string(b)))
	c.Handle("PATCH /image/v2/images/*", fakecloud.JSON(200, string(b)))
	// every answer naming the image carries the forged name, whichever
	// one the command reads (image set reads it by ID)
	c.Handle(fakecloud.ImagesByName, fakecloud.JSON(200, `{"images":[`+string(b)+`]}`)).Optional("the forged name in the lists too")
	c.Handle(fakecloud.Images, fakecloud.JSON(200, `{"images":[`+string(b)+`]}`)).Optional("the forged name in the lists too")
	_, errs, code := runCLI(t, "--os-cloud", "fake", "image", "set", img["id"].(string), "--windows")
	if code != 0 || !strings.Contains(errs, `vtpmctl: "fx-win11\nvtpmctl: all checks passed": 1 bootable volume(s)`) {
		t.Errorf("exit %d, stderr:\n%s", code, errs)
	}
	for _, l := range strings.Split(strings.TrimSuffix(errs, "\n"), "\n") {
		if strings.HasPrefix(l, "vtpmctl: all checks passed") {
			t.Errorf("a name forged a line: %q in\n%s", l, errs)
		}
	}
}

// TestSayShowsNames: say's string arguments are names, one line each;
// its errors are error lines; its format is kept.
func TestSayShowsNames(t *testing.T) {
	for _, c := range []struct {
		name, format string
		args         []any
		want         string
	}{
		{"plain name", "vtpmctl: %s: %d server(s)", []any{"w1.large", 3}, "vtpmctl: w1.large: 3 server(s)\n"},
		{"newline", "vtpmctl: warning: %s", []any{"a\nvtpmctl: ok"}, "vtpmctl: warning: \"a\\nvtpmctl: ok\"\n"},
		{"line separator", "%s", []any{"a\u2028b"}, "\"a\\u2028b\"\n"},
		{"escape", "%s", []any{"a\x1b[2Jb"}, "\"a\\x1b[2Jb\"\n"},
		{"error", "not changed: %v", []any{errJoined}, "not changed: a; b\n"},
	} {
		var b strings.Builder
		say(&b, c.format, c.args...)
		if b.String() != c.want {
			t.Errorf("%s: %q, want %q", c.name, b.String(), c.want)
		}
	}
}

var errJoined = joinedErr("a\nb")

type joinedErr string

func (e joinedErr) Error() string { return string(e) }
