// Command coverage prints the statement coverage per package of a Go
// cover profile (several test binaries may count one statement; it is
// covered when any did).
package main

import (
	"bufio"
	"fmt"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: coverage PROFILE")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "coverage:", err)
		os.Exit(1)
	}
	defer f.Close()
	type block struct {
		n       int
		covered bool
	}
	blocks := map[string]*block{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "mode:") {
			continue
		}
		fields := strings.Fields(l)
		if len(fields) != 3 {
			continue
		}
		n, _ := strconv.Atoi(fields[1])
		c, _ := strconv.Atoi(fields[2])
		b := blocks[fields[0]]
		if b == nil {
			b = &block{n: n}
			blocks[fields[0]] = b
		}
		b.covered = b.covered || c > 0
	}
	total, covered := map[string]int{}, map[string]int{}
	for loc, b := range blocks {
		pkg := path.Dir(strings.SplitN(loc, ":", 2)[0])
		total[pkg] += b.n
		if b.covered {
			covered[pkg] += b.n
		}
	}
	pkgs := make([]string, 0, len(total))
	for p := range total {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		fmt.Printf("coverage: %-45s %5.1f%% of %d statements\n", p, 100*float64(covered[p])/float64(total[p]), total[p])
	}
}
