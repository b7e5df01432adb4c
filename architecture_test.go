package vtpmctl_test

// The house's walls, held by the code's own imports (ARCHITECTURE.md
// draws them): every package lives in one layer, named by its top-level
// folder, and imports only from the layers below it. A move that breaks
// a wall fails here, not in a review months later.

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/vtpmctl/vtpmctl"

// layers: a top-level folder and its floor (1 is the ground).
var layers = map[string]int{
	"internal":  1, // infrastructure: transport, output, redaction, files
	"domain":    2, // pure rules: Nova's, the host checks, the fleet, secrets, migration, UEFI
	"openstack": 3, // one package per OpenStack service: API calls only
	"vsphere":   3, // the vCenter reader
	"app":       4, // the use cases, by noun: typed request in, typed result out
	"cmd":       5, // the CLI: flags to a request, one call, the result rendered
	"tools":     5, // make's own programs (docs, benches, test summary)
}

// siblingFree are layers whose packages may not import one another: an
// API package speaks for one service only.
var siblingFree = map[string]bool{"openstack": true}

// cliLayers may spell flags: they are command lines.
var cliLayers = map[string]bool{"cmd": true, "tools": true}

type pkg struct {
	dir     string // relative to the repository, slash-separated
	imports map[string][]string
	files   []*ast.File
	fset    *token.FileSet
}

// packages parses every non-test Go file of the module (whatever its
// build tags: a wall holds for every build).
func packages(t *testing.T) map[string]*pkg {
	t.Helper()
	out := map[string]*pkg{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bin" || name == "dist" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		p := out[dir]
		if p == nil {
			p = &pkg{dir: dir, imports: map[string][]string{}, fset: fset}
			out[dir] = p
		}
		p.files = append(p.files, f)
		for _, im := range f.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			if rel, ok := strings.CutPrefix(ip, module+"/"); ok {
				p.imports[rel] = append(p.imports[rel], path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 20 {
		t.Fatalf("found %d packages: not run from the repository's root?", len(out))
	}
	return out
}

func top(dir string) string { return strings.SplitN(dir, "/", 2)[0] }

// TestLayers: every package is in a layer; every import points to a
// lower floor (or within its own folder, never between API packages).
func TestLayers(t *testing.T) {
	for dir, p := range packages(t) {
		from, ok := layers[top(dir)]
		if !ok {
			t.Errorf("%s: not in a layer (its top-level folder is none of %v): put it where its imports say it belongs", dir, names())
			continue
		}
		for im, files := range p.imports {
			to, ok := layers[top(im)]
			switch {
			case !ok:
				t.Errorf("%s imports %s, which is in no layer", dir, im)
			case top(im) == top(dir) && siblingFree[top(dir)] && !strings.HasPrefix(im, dir+"/") && !strings.HasPrefix(dir, im+"/"):
				t.Errorf("%s imports %s (%s): an API package speaks for its own service only; combine services in app/", dir, im, files[0])
			case top(im) != top(dir) && to >= from:
				t.Errorf("%s (floor %d) imports %s (floor %d) in %s: imports point down only", dir, from, im, to, files[0])
			}
		}
	}
}

// TestFloors: the folders' import graph has no cycle and at most five
// floors (a folder stands above everything it imports).
func TestFloors(t *testing.T) {
	graph := map[string]map[string]bool{}
	for dir, p := range packages(t) {
		a := top(dir)
		if graph[a] == nil {
			graph[a] = map[string]bool{}
		}
		for im := range p.imports {
			if b := top(im); b != a {
				graph[a][b] = true
			}
		}
	}
	floor := map[string]int{}
	var height func(n string, path []string) int
	height = func(n string, path []string) int {
		for _, p := range path {
			if p == n {
				t.Fatalf("cycle: %s -> %s", strings.Join(path, " -> "), n)
			}
		}
		if f, ok := floor[n]; ok {
			return f
		}
		h := 1
		for m := range graph[n] {
			if x := height(m, append(path, n)) + 1; x > h {
				h = x
			}
		}
		floor[n] = h
		return h
	}
	max := 0
	for n := range graph {
		if h := height(n, nil); h > max {
			max = h
		}
	}
	if max > 5 {
		t.Errorf("%d floors, want at most 5: %v", max, floor)
	}
}

// TestDomainIsPure: the rules know no API: a domain package imports no
// OpenStack client, no vSphere client, no HTTP.
func TestDomainIsPure(t *testing.T) {
	banned := regexp.MustCompile(`^(github\.com/gophercloud/|github\.com/vmware/govmomi|net/http$)`)
	for dir, p := range packages(t) {
		if top(dir) != "domain" {
			continue
		}
		for _, f := range p.files {
			for _, im := range f.Imports {
				if ip, _ := strconv.Unquote(im.Path.Value); banned.MatchString(ip) {
					t.Errorf("%s imports %s: the domain's rules take data, the app fetches it", p.fset.Position(im.Pos()).Filename, ip)
				}
			}
		}
	}
}

// cliFlags are the flags the CLI declares (cli.*Flag{Name: …, Aliases:
// …}, and the helpers that make one, e.g. releaseFlag("nova-release", …)).
func cliFlags(t *testing.T, pkgs map[string]*pkg) map[string]bool {
	flags := map[string]bool{}
	add := func(e ast.Expr) {
		if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if v, err := strconv.Unquote(lit.Value); err == nil && len(v) > 1 {
				flags[v] = true
			}
		}
	}
	for _, f := range pkgs["cmd/vtpmctl"].files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.CompositeLit:
				sel, ok := x.Type.(*ast.SelectorExpr)
				if !ok || !strings.HasSuffix(sel.Sel.Name, "Flag") {
					return true
				}
				for _, el := range x.Elts {
					kv, ok := el.(*ast.KeyValueExpr)
					if !ok {
						continue
					}
					switch k, _ := kv.Key.(*ast.Ident); {
					case k != nil && k.Name == "Name":
						add(kv.Value)
					case k != nil && k.Name == "Aliases":
						if al, ok := kv.Value.(*ast.CompositeLit); ok {
							for _, a := range al.Elts {
								add(a)
							}
						}
					}
				}
			case *ast.CallExpr:
				if id, ok := x.Fun.(*ast.Ident); ok && strings.HasSuffix(id.Name, "Flag") && len(x.Args) > 0 {
					add(x.Args[0])
				}
			}
			return true
		})
	}
	if len(flags) < 30 {
		t.Fatalf("found %d flags in cmd/vtpmctl: the parse no longer sees them", len(flags))
	}
	return flags
}

var (
	// a flag spelled inside words, or alone
	flagWord = regexp.MustCompile(`(?:^|[^\w-])--([a-z][a-z0-9-]*)`)
	// a vtpmctl command line, or a command named in words
	ownCommand = regexp.MustCompile(`\bvtpmctl (check|image|volume|flavor|host|hosts|secrets|plan|upgrade|report)\b`)
	// one flag alone is an argument handed to another program (exec)
	oneToken = regexp.MustCompile(`^--?[A-Za-z0-9][\w.-]*(=\S*)?$`)
	// another program's command line: its options are its own interface
	// (a remedy quoting the openstack client, swtpm, virt-fw-vars, govc)
	otherProgram = regexp.MustCompile(`\b(openstack|virt-fw-vars|swtpm|swtpm_setup|govc|virsh)\b`)
)

// TestNoFlagsBelowTheCLI: no package below the CLI spells one of its
// flags or builds one of its command lines: the domain returns typed
// errors and typed plans, and the CLI words them with its own flags.
func TestNoFlagsBelowTheCLI(t *testing.T) {
	pkgs := packages(t)
	flags := cliFlags(t, pkgs)
	var found []string
	for dir, p := range pkgs {
		if cliLayers[top(dir)] {
			continue
		}
		for _, f := range p.files {
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil || oneToken.MatchString(s) {
					return true
				}
				bad := ownCommand.MatchString(s)
				if !otherProgram.MatchString(s) {
					for _, m := range flagWord.FindAllStringSubmatch(s, -1) {
						bad = bad || flags[m[1]]
					}
				}
				if bad {
					found = append(found, fmt.Sprintf("%s: %q", p.fset.Position(lit.Pos()), s))
				}
				return true
			})
		}
	}
	sort.Strings(found)
	for _, f := range found {
		t.Errorf("the CLI's words below the CLI: %s", f)
	}
}

func names() []string {
	var n []string
	for k := range layers {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

func TestMain(m *testing.M) {
	// the walls are the repository's: run from its root whatever the
	// caller's directory (go test ./... runs each package in its own)
	if _, err := os.Stat("go.mod"); err != nil {
		fmt.Fprintln(os.Stderr, "architecture_test: run from the repository root")
		os.Exit(2)
	}
	os.Exit(m.Run())
}
