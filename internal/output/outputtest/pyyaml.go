package outputtest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// RequirePyYAML is the environment variable that makes a missing PyYAML
// a failure of PyYAMLReadsAsJSON, not a skip (CI sets it).
const RequirePyYAML = "VTPMCTL_REQUIRE_PYYAML"

// Doc is one result as -f yaml and -f json wrote it.
type Doc struct {
	Name       string
	YAML, JSON []byte
}

// PyYAMLReadsAsJSON checks that PyYAML's yaml.safe_load, a YAML 1.1
// reader (Ansible's), reads each document's YAML as json.load reads its
// JSON: the same values, of the same types (a "yes" that PyYAML reads as
// True, or a "1:20" as 80, is a difference). Without python3 and PyYAML
// it skips, or fails when RequirePyYAML is set to 1.
func PyYAMLReadsAsJSON(t testing.TB, docs ...Doc) {
	t.Helper()
	if out, err := exec.Command("python3", "-c", "import yaml").CombinedOutput(); err != nil {
		msg := "python3 with PyYAML is needed to read the YAML as YAML 1.1 readers do (apt-get install python3-yaml): " +
			strings.TrimSpace(err.Error()+" "+string(out))
		if os.Getenv(RequirePyYAML) == "1" {
			t.Fatalf("%s (%s=1)", msg, RequirePyYAML)
		}
		t.Skipf("%s; %s=1 makes this a failure", msg, RequirePyYAML)
	}
	dir := t.TempDir()
	var list [][3]string
	for i, d := range docs {
		if !json.Valid(d.JSON) {
			t.Fatalf("%s: the JSON is not valid:\n%s", d.Name, d.JSON)
		}
		y, j := filepath.Join(dir, fmt.Sprintf("%d.yaml", i)), filepath.Join(dir, fmt.Sprintf("%d.json", i))
		if err := os.WriteFile(y, d.YAML, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(j, d.JSON, 0o600); err != nil {
			t.Fatal(err)
		}
		list = append(list, [3]string{d.Name, y, j})
	}
	arg, _ := json.Marshal(list)
	out, err := exec.Command("python3", "-c", compareScript, string(arg)).CombinedOutput()
	if err != nil {
		t.Errorf("PyYAML reads the YAML otherwise than json its JSON (%v):\n%s", err, out)
	}
}

// compareScript loads each pair and names every path where the values
// or their types differ (True == 1 in Python: types are compared first);
// keys are compared as sets (a Go map's keys are sorted otherwise in
// YAML than in JSON).
const compareScript = `
import json, sys, yaml

def diff(path, y, j, out):
    if type(y) is not type(j):
        out.append("%s: YAML %s %r, JSON %s %r" % (path or "/", type(y).__name__, y, type(j).__name__, j))
    elif isinstance(j, dict):
        if set(y) != set(j):
            out.append("%s: keys only in the YAML %r, only in the JSON %r" % (path or "/", sorted(map(repr, set(y) - set(j))), sorted(set(j) - set(y))))
        for k in j:
            if k in y:
                diff(path + "/" + str(k), y[k], j[k], out)
    elif isinstance(j, list):
        if len(y) != len(j):
            out.append("%s: YAML %d items, JSON %d" % (path or "/", len(y), len(j)))
        for i, (a, b) in enumerate(zip(y, j)):
            diff(path + "/" + str(i), a, b, out)
    elif y != j:
        out.append("%s: YAML %r, JSON %r" % (path or "/", y, j))

bad = 0
for name, ypath, jpath in json.loads(sys.argv[1]):
    out = []
    try:
        with open(ypath) as f:
            y = yaml.safe_load(f)
    except Exception as e:
        out.append("yaml.safe_load: %s" % e)
    else:
        with open(jpath) as f:
            diff("", y, json.load(f), out)
    for line in out:
        print("%s: %s" % (name, line))
    bad += len(out)
sys.exit(1 if bad else 0)
`
