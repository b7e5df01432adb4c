package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
	"github.com/vtpmctl/vtpmctl/internal/output"
)

// noResult are the commands that print no result -c chooses from: a
// page, a plan file, a manual, a completion script.
var noResult = []string{"report", "plan import", "man"}

// TestEveryCommandDeclaresItsResult: every leaf command that prints a
// result declares it (withResult), so its -c is checked before any work;
// the others are named above. Each declared result has columns in every
// format the command declares, but those whose names come from no fixed
// list (prometheus, markdown).
func TestEveryCommandDeclaresItsResult(t *testing.T) {
	root := newRootCommand(&globalOptions{}, &IOStreams{})
	declared := 0
	for _, n := range commandTree(root) {
		if len(n.cmd.Commands) > 0 || strings.HasPrefix(n.path, "completion") {
			continue
		}
		proto, ok := commandResult(n.cmd)
		if ok == slices.Contains(noResult, n.path) {
			t.Errorf("%q: declares a result %v; want %v", n.path, ok, !ok)
			continue
		}
		if !ok {
			continue
		}
		declared++
		for _, f := range commandFormats(n.cmd) {
			names, ok := output.Columns(proto, f)
			if want := f != output.FormatPrometheus && f != output.FormatMarkdown; ok != want || ok && len(names) == 0 {
				t.Errorf("%s -f %s: columns %v (%v)", n.path, f, names, ok)
			}
		}
	}
	if declared < 25 {
		t.Errorf("only %d commands declare a result", declared)
	}
	t.Run("declared where built", resultsDeclaredWhereBuilt)
}

// resultsDeclaredWhereBuilt: withResult is called in the new…Command that
// builds the command, as withFormats is, never from a table by path.
func resultsDeclaredWhereBuilt(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "withResult" {
						calls++
						if !regexp.MustCompile(`^new\w*Command$`).MatchString(fn.Name.Name) {
							t.Errorf("%s: withResult in %s: declare the result where the command is built", fset.Position(c.Pos()), fn.Name.Name)
						}
					}
				}
				return true
			})
		}
	}
	if calls < 20 {
		t.Errorf("%d withResult calls", calls)
	}
}

// TestBadColumnSendsNoRequest: a -c that names no column of what the
// command prints is one usage line (the flag, the value, the closest
// column or the list), exit 2, nothing on stdout, and no request: before,
// `secrets audit --all-projects -c stauts` audited every project, then
// refused the column.
func TestBadColumnSendsNoRequest(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"secrets", "audit", "--all-projects", "-c", "stauts"}, `-c "stauts": secrets audit has no such column (choose from result, server_id, name, project_id, project_name, user_id, owner_name, mode, secret_id, protection, checks, findings, cannot)`},
		{[]string{"secrets", "audit", "--all-projects", "-c", "sever_id"}, `-c "sever_id": secrets audit has no such column (did you mean "server_id"?)`},
		{[]string{"secrets", "audit", "-c", "server_id", "--column", "reslut"}, `-c "reslut": secrets audit has no such column (did you mean "result"?)`},
		{[]string{"secrets", "audit", "-f", "json", "-c", "server_idd"}, `-c "server_idd": secrets audit -f json has no such field (did you mean "server_id"?)`},
		{[]string{"secrets", "audit", "--summary", "-c", "server"}, `-c "server": secrets audit has no such column (choose from summary, value)`},
		{[]string{"secrets", "audit", "--cleanup-plan", "-f", "csv", "-c", "secert_id"}, `-c "secert_id": secrets audit has no such column (did you mean "secret_id"?)`},
		{[]string{"hosts", "audit", "-c", "hots"}, `-c "hots": hosts audit has no such column (did you mean "host"?)`},
		{[]string{"hosts", "audit", "--drain", "cmp1", "-c", "hots"}, `-c "hots": hosts audit has no such column (choose from result, server_id, name, mode, drain, drain_reason)`},
		{[]string{"image", "list", "-c", "nmae"}, `-c "nmae": image list has no such column (did you mean "name"?)`},
		{[]string{"image", "show", "x", "-c", "hw_tpm_verison"}, `-c "hw_tpm_verison": image show has no such column (did you mean "hw_tpm_version"?)`},
		{[]string{"image", "set", "x", "--tpm-version", "2.0", "-c", "acton"}, `-c "acton": image set has no such column (did you mean "action"?)`},
		{[]string{"flavor", "show", "x", "-f", "yaml", "-c", "hw:tpm_modle"}, `-c "hw:tpm_modle": flavor show -f yaml has no such field (did you mean "hw:tpm_model"?)`},
		{[]string{"check", "--image", "x", "-c", "versoin"}, `-c "versoin": check has no such column (did you mean "version"?)`},
		{[]string{"upgrade", "check", "--to", "2026.1", "-c", "vtpm_nwo"}, `-c "vtpm_nwo": upgrade check has no such column (did you mean "vtpm_now"?)`},
	} {
		c := secretsCloud(t)
		before := len(c.Sent())
		out, errs, code := runCLI(t, append([]string{"--os-cloud", "fake"}, tc.args...)...)
		if code != exitUsage || out != "" || errs != "vtpmctl: "+tc.want+"\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q\nwant vtpmctl: %s", tc.args, code, out, errs, tc.want)
		}
		if sent := c.Sent()[before:]; len(sent) != 0 {
			t.Errorf("%v: %d request(s) sent before the refusal, first %s %s", tc.args, len(sent), sent[0].Method, sent[0].Path)
		}
	}
}

// TestGoodColumnsPass: the columns the commands print are taken as
// before, in any case, whatever the format (the check's own columns and
// fields, the audit's JSON fields), and -c with a format whose names are
// the rows' own is not refused in advance.
func TestGoodColumnsPass(t *testing.T) {
	offline := []string{"check", "--image-property", "hw_tpm_version=2.0", "--nova-release", "zed"}
	for _, tc := range [][]string{
		{"-f", "value", "-c", "version", "-c", "VTPM"},
		{"-f", "json", "-c", "schema", "-c", "version_source"},
		{"-f", "csv", "-c", "nova_release"},
		{"-c", "notes"},
	} {
		out, errs, code := runCLI(t, append(tc, offline...)...)
		if code != 0 || out == "" {
			t.Errorf("%v: exit %d %s", tc, code, errs)
		}
	}
	c := secretsCloud(t)
	out, errs, code := runCLI(t, "--os-cloud", "fake", "secrets", "audit", "--project", "p", "-f", "json", "-c", "server_id", "-c", "mode")
	if code == exitUsage || !strings.Contains(out, `"server_id"`) || c.Count("GET /key-manager") == 0 {
		t.Errorf("secrets audit -f json -c server_id: exit %d\n%s\n%s", code, out, errs)
	}
	out, errs, code = runCLI(t, "--os-cloud", "fake", "secrets", "audit", "--project", "p", "-f", "value", "-c", "SERVER_ID", "-c", "checks")
	if code == exitUsage || !strings.Contains(out, guestID) {
		t.Errorf("secrets audit -f value -c SERVER_ID -c checks: exit %d\n%s\n%s", code, out, errs)
	}
}

// TestColumnFlagsHook: a column flag other than -c (--sort-column, once
// a command has it) is checked by the same guard, named as typed.
func TestColumnFlagsHook(t *testing.T) {
	err := checkColumnValues(changesDocument(nil, nil), "image set", output.FormatTable, [][2]string{{"column", "key"}, {"sort-column", "objet"}})
	var b bytes.Buffer
	if code := exitCode(err, &b); code != exitUsage || b.String() != "vtpmctl: --sort-column \"objet\": image set has no such column (did you mean \"object\"?)\n" {
		t.Errorf("exit %d %q", code, b.String())
	}
}

// TestEnumeratedFlagsBeforeAnyRequest: a value that is none of a flag's
// choices is one usage line naming the flag, the value and the closest
// choice (or the choices), exit 2, and no request. Before, --secret-security
// was checked once the cloud was asked, and no line named a close choice.
func TestEnumeratedFlagsBeforeAnyRequest(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-f", "jsn", "secrets", "audit"}, `-f "jsn": not an output format (did you mean "json"?)`},
		{[]string{"secrets", "audit", "-f", "xml"}, `-f "xml": not an output format (choose from table, json, yaml, value, csv, markdown, prometheus)`},
		{[]string{"secrets", "audit", "--status", "fail,wran"}, `--status "wran": not a status (did you mean "warn"?)`},
		{[]string{"hosts", "audit", "--status", "bad"}, `--status "bad": not a status (choose from fail, warn, skip, pass)`},
		{[]string{"report", "-o", "-", "--fail-on", "fial"}, `--fail-on "fial": not fail or warn (did you mean "fail"?)`},
		{[]string{"secrets", "mode-plan", "--to", "deploy"}, `--to "deploy": not a secret security mode (did you mean "deployment"?)`},
		{[]string{"secrets", "mode-plan", "--to", "vault"}, `--to "vault": not a secret security mode (choose from user, host, deployment)`},
		{[]string{"secrets", "mode-plan", "--to", "hots"}, `--to "hots": not a secret security mode (did you mean "host"?)`},
		{[]string{"flavor", "set", "w1", "--secret-security", "hots"}, `invalid --secret-security "hots" (did you mean "host"?)`},
		{[]string{"flavor", "create", "w1", "--vcpus", "1", "--ram", "1", "--tpm-version", "2.0", "--tpm-model", "tpm-tsi"}, `invalid --tpm-model "tpm-tsi" (did you mean "tpm-tis"?)`},
		{[]string{"image", "set", "x", "--tpm-version", "2"}, `invalid --tpm-version "2" (choose 1.2 or 2.0)`},
		{[]string{"volume", "set", "x", "--tpm-version", "2.0", "--tpm-model", "crb"}, `invalid --tpm-model "crb" (choose tpm-tis or tpm-crb)`},
		{[]string{"check", "--image", "x", "--nova-release", "dalmation"}, `invalid value "dalmation" for --nova-release: no such Nova release (did you mean "dalmatian"?)`},
		{[]string{"upgrade", "check", "--to", "Epoxi"}, `invalid value "Epoxi" for --to: no such Nova release (did you mean "epoxy"?)`},
	} {
		c := secretsCloud(t)
		before := len(c.Sent())
		out, errs, code := runCLI(t, append([]string{"--os-cloud", "fake"}, tc.args...)...)
		if code != exitUsage || out != "" || errs != "vtpmctl: "+tc.want+"\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q\nwant vtpmctl: %s", tc.args, code, out, errs, tc.want)
		}
		if sent := c.Sent()[before:]; len(sent) != 0 {
			t.Errorf("%v: %d request(s) sent before the refusal", tc.args, len(sent))
		}
	}
	// host check runs on the host: its --layout is checked before any file.
	_, errs, code := runCLI(t, "host", "check", "--root", t.TempDir(), "--layout", "kola", "--nova-release", "zed")
	if code != exitUsage || errs != "vtpmctl: --layout \"kola\": not a layout (did you mean \"kolla\"?)\n" {
		t.Errorf("--layout kola: exit %d %q", code, errs)
	}
}

// TestCheckNamesNearMisses: a key Nova ignores that stands for a vTPM key
// is a warning naming the key Nova reads and what ignoring it does, and a
// near_misses entry in the JSON; check still answers as Nova would
// (accepted, no vTPM, exit 0). Before, these three said "accepted, no
// vTPM" and nothing else.
func TestCheckNamesNearMisses(t *testing.T) {
	for _, tc := range []struct {
		flag, kv, want string
		miss           nova.NearMiss
	}{
		{"--image-property", "hw_tpm_verion=2.0", "image property hw_tpm_verion is not a key Nova reads, so Nova gives the server no vTPM; did you mean hw_tpm_version?",
			nova.NearMiss{Key: "hw_tpm_verion", Kind: nova.ImageKeys, Want: "hw_tpm_version", Reason: nova.MissTypo, Effect: nova.EffectNoVTPM}},
		{"--flavor-spec", "hw:tpm_verison=2.0", "flavor extra spec hw:tpm_verison is not a key Nova reads, so Nova gives the server no vTPM; did you mean hw:tpm_version?",
			nova.NearMiss{Key: "hw:tpm_verison", Kind: nova.FlavorKeys, Want: "hw:tpm_version", Reason: nova.MissTypo, Effect: nova.EffectNoVTPM}},
		{"--flavor-spec", "tpm_version=2.0", "flavor extra spec tpm_version, without its hw: prefix, is not a key Nova reads, so Nova gives the server no vTPM; did you mean hw:tpm_version?",
			nova.NearMiss{Key: "tpm_version", Kind: nova.FlavorKeys, Want: "hw:tpm_version", Reason: nova.MissPrefix, Effect: nova.EffectNoVTPM}},
		{"--flavor-spec", "hw_tpm_version=2.0", "flavor extra spec hw_tpm_version, an image property's spelling, is not a key Nova reads, so Nova gives the server no vTPM; did you mean hw:tpm_version?",
			nova.NearMiss{Key: "hw_tpm_version", Kind: nova.FlavorKeys, Want: "hw:tpm_version", Reason: nova.MissOtherKind, Effect: nova.EffectNoVTPM}},
	} {
		args := []string{"check", tc.flag, tc.kv, "--nova-release", "zed"}
		out, errs, code := runCLI(t, append(args, "-f", "value", "-c", "result", "-c", "vtpm")...)
		if code != 0 || out != "accepted\nno\n" || errs != "vtpmctl: warning: "+tc.want+"\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q\nwant the warning %s", args, code, out, errs, tc.want)
		}
		out, _, code = runCLI(t, append(args, "-f", "json")...)
		var doc struct {
			VTPM       bool            `json:"vtpm"`
			NearMisses []nova.NearMiss `json:"near_misses"`
		}
		if jsonOut(t, out, &doc); code != 0 || doc.VTPM || len(doc.NearMisses) != 1 || doc.NearMisses[0] != tc.miss {
			t.Errorf("%v -f json: exit %d %+v, want %+v", args, code, doc, tc.miss)
		}
	}
	// the model missed: a vTPM, with the default model
	_, errs, code := runCLI(t, "check", "--flavor-spec", "hw:tpm_version=2.0", "--flavor-spec", "hw:tpm_modle=tpm-crb", "--nova-release", "zed", "-f", "value", "-c", "model")
	if code != 0 || !strings.Contains(errs, "flavor extra spec hw:tpm_modle is not a key Nova reads, so Nova gives the default model, tpm-tis; did you mean hw:tpm_model?") {
		t.Errorf("model: exit %d %s", code, errs)
	}
	// none: no warning, an empty list
	out, errs, _ := runCLI(t, "check", "--flavor-spec", "hw:tpm_version=2.0", "--nova-release", "zed", "-f", "json", "-c", "near_misses")
	if errs != "" || !strings.Contains(out, `"near_misses": []`) {
		t.Errorf("no near miss: %s %s", out, errs)
	}
}

// TestSetNamesNearMisses: image set and flavor set name a key the object
// keeps that Nova ignores but that stands for a vTPM key: a warning line
// naming the key Nova reads, and near_misses in the changes document.
func TestSetNamesNearMisses(t *testing.T) {
	c := fakecloud.New(t)
	c.Handle("GET /image/v2/images?limit=100&name=eq:win", fakecloud.JSON(200, `{"images":[{"id":"i-win","name":"win","hw_tpm_modle":"tpm-crb"}]}`))
	c.Handle(fakecloud.Flavors, fakecloud.JSON(200, `{"flavors":[{"id":"f1","name":"w1","vcpus":2,"ram":4096,"disk":40,"extra_specs":{"hw_tpm_version":"2.0"}}]}`))
	c.Handle(fakecloud.Volumes, fakecloud.JSON(200, `{"volumes":[]}`)).Optional("image set looks for the volumes made from the image")
	// flavor set checks the images for conflicts and counts the flavor's servers
	c.Handle(fakecloud.Images, fakecloud.JSON(200, `{"images":[]}`))
	c.Handle("GET /compute/v2.1/servers?all_tenants=true&flavor=f1&limit=1000", fakecloud.JSON(200, `{"servers":[]}`))
	out, errs, code := runCLI(t, "--os-cloud", "fake", "image", "set", "win", "--tpm-version", "2.0", "--nova-release", "zed", "--dry-run", "-f", "json")
	var doc struct {
		Schema     string              `json:"schema"`
		NearMisses []map[string]string `json:"near_misses"`
	}
	jsonOut(t, out, &doc)
	want := map[string]string{"object": "win", "key": "hw_tpm_modle", "kind": "image", "did_you_mean": "hw_tpm_model", "reason": "typo"}
	if code != 0 || len(doc.NearMisses) != 1 || !reflect.DeepEqual(doc.NearMisses[0], want) ||
		!strings.Contains(errs, "vtpmctl: warning: win: property hw_tpm_modle is not a key Nova reads; did you mean hw_tpm_model?\n") {
		t.Errorf("image set: exit %d %+v\n%s", code, doc, errs)
	}
	out, errs, code = runCLI(t, "--os-cloud", "fake", "flavor", "set", "w1", "--tpm-version", "2.0", "--nova-release", "zed", "--dry-run", "-f", "json")
	jsonOut(t, out, &doc)
	want = map[string]string{"object": "w1", "key": "hw_tpm_version", "kind": "flavor", "did_you_mean": "hw:tpm_version", "reason": "other_kind"}
	if code != 0 || len(doc.NearMisses) != 1 || !reflect.DeepEqual(doc.NearMisses[0], want) ||
		!strings.Contains(errs, "vtpmctl: warning: w1: extra spec hw_tpm_version, an image property's spelling, is not a key Nova reads; did you mean hw:tpm_version?\n") {
		t.Errorf("flavor set: exit %d %+v\n%s", code, doc, errs)
	}
	// none: an empty list
	out, _, _ = runCLI(t, "--os-cloud", "fake", "flavor", "set", "w1", "--tpm-version", "2.0", "--nova-release", "zed", "--dry-run", "-f", "json", "-c", "key")
	if !strings.Contains(out, `"near_misses": [`) {
		t.Errorf("-c keeps near_misses:\n%s", out)
	}
}

// TestPlanNamesNearMisses: a plan image's properties key that Nova
// ignores but that stands for a vTPM key is a warning naming the file,
// the entry and the key Nova reads: at every plan command, once (plan
// diff names it on the Glance image it would write, in near_misses too,
// or from the plan for an image not in Glance yet).
func TestPlanNamesNearMisses(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plan.yaml")
	plan := "version: 1\nimages:\n  - {name: w, tpm_version: \"2.0\", properties: {hw_tpm_modle: tpm-crb}}\n  - {name: pending, properties: {tpm_version: \"2.0\"}}\nflavors: []\nvms: []\n"
	if err := os.WriteFile(file, []byte(plan), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errs, code := runCLI(t, "plan", "checklist", file, "-f", "json")
	want := "vtpmctl: warning: " + file + ": images[0] (w): properties key hw_tpm_modle is not a key Nova reads; did you mean hw_tpm_model?\n" +
		"vtpmctl: warning: " + file + ": images[1] (pending): properties key tpm_version, without its hw_ prefix, is not a key Nova reads; did you mean hw_tpm_version?\n"
	if code != 0 || errs != want {
		t.Errorf("plan checklist: exit %d\n%s\nwant\n%s", code, errs, want)
	}
	c := fakecloud.New(t)
	c.Handle("GET /image/v2/images?limit=100&name=eq:w", fakecloud.JSON(200, `{"images":[{"id":"i-w","name":"w"}]}`))
	c.Handle("GET /image/v2/images?limit=100&name=eq:pending", fakecloud.JSON(200, `{"images":[]}`))
	c.Handle("GET /image/v2/images/pending", fakecloud.JSON(404, `{}`)).Optional("a name that could be an ID")
	c.Handle(fakecloud.Flavors, fakecloud.JSON(200, `{"flavors":[]}`))
	c.Handle(fakecloud.Volumes, fakecloud.JSON(200, `{"volumes":[]}`)) // boot volumes for the pending image
	out, errs, code := runCLI(t, "--os-cloud", "fake", "plan", "diff", file, "--nova-release", "zed", "-f", "json")
	var doc struct {
		NearMisses []map[string]string `json:"near_misses"`
	}
	jsonOut(t, out, &doc)
	if code != 0 || len(doc.NearMisses) != 1 || doc.NearMisses[0]["object"] != "w" || doc.NearMisses[0]["key"] != "hw_tpm_modle" ||
		strings.Count(errs, "hw_tpm_modle") != 1 || !strings.Contains(errs, "vtpmctl: warning: w: property hw_tpm_modle is not a key Nova reads; did you mean hw_tpm_model?\n") ||
		!strings.Contains(errs, "vtpmctl: warning: "+file+": images[1] (pending): properties key tpm_version") {
		t.Errorf("plan diff: exit %d %+v\n%s", code, doc, errs)
	}
}

// TestCheckValueIsRaw: -f value and csv print check's fields raw, as
// OSC's value format does, for $(…): the version bare (where it came
// from in version_source), the release as --nova-release takes it back.
// The table keeps the release in words and shows the source beside the
// value; json is as it was. Before, -f value -c version printed
// "2.0 (image)" and -c nova_release "Zed (nova 26)".
func TestCheckValueIsRaw(t *testing.T) {
	offline := func(rel string, more ...string) []string {
		return append([]string{"check", "--image-property", "hw_tpm_version=2.0", "--flavor-spec", "hw:tpm_model=tpm-crb", "--nova-release", rel}, more...)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{offline("zed", "-f", "value", "-c", "version"), "2.0\n"},
		{offline("zed", "-f", "value", "-c", "nova_release"), "zed\n"},
		{offline("dalmatian", "-f", "value", "-c", "nova_release"), "2024.2\n"},
		{offline("2026.1", "-f", "value", "-c", "version", "-c", "version_source", "-c", "model", "-c", "model_source", "-c", "secret_security", "-c", "secret_security_source"), "2.0\nimage\ntpm-crb\nflavor\nuser\ndefault\n"},
		{offline("zed", "-f", "csv", "-c", "nova_release", "-c", "version", "-c", "model"), "nova_release,version,model\nzed,2.0,tpm-crb\n"},
	} {
		out, errs, code := runCLI(t, tc.args...)
		if code != 0 || out != tc.want {
			t.Errorf("%v: exit %d %q %s, want %q", tc.args, code, out, errs, tc.want)
		}
	}
	// what -f value printed is a release --nova-release takes
	rel, _, _ := runCLI(t, offline("gazpacho", "-f", "value", "-c", "nova_release")...)
	if out, errs, code := runCLI(t, offline(strings.TrimSpace(rel), "-f", "value", "-c", "nova_release")...); code != 0 || out != rel {
		t.Errorf("--nova-release %q: exit %d %q %s", rel, code, out, errs)
	}
	out, _, _ := runCLI(t, offline("zed", "-c", "nova_release", "-c", "version", "-c", "version_source")...)
	for _, want := range []string{"| nova_release   | Zed (nova 26) |", "| version        | 2.0           |", "| version_source | image         |"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	out, _, _ = runCLI(t, offline("zed", "-f", "json", "-c", "version", "-c", "nova_release")...)
	if !strings.Contains(out, `"version": "2.0"`) || !strings.Contains(out, `"codename": "zed"`) {
		t.Errorf("json:\n%s", out)
	}
	// the show commands' release too
	fixtureCloud(t)
	out, errs, code := runCLI(t, "--os-cloud", "fake", "image", "show", fakecloud.FixtureImage, "-f", "value", "-c", "nova_release")
	if code != 0 || out != "zed\n" {
		t.Errorf("image show -f value -c nova_release: exit %d %q %s", code, out, errs)
	}
	out, _, _ = runCLI(t, "--os-cloud", "fake", "image", "show", fakecloud.FixtureImage, "-c", "nova_release")
	if !strings.Contains(out, "Zed (nova 26)") {
		t.Errorf("image show's table:\n%s", out)
	}
}
