package repotest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/neardup/neardup"

// layer is one row of docs/architecture.md's import table.
type layer struct {
	name     string
	patterns []string            // module-relative, "x/..." for x and below
	any      bool                // its packages may import one another freely
	within   map[string][]string // otherwise: package -> the same-layer patterns it may import
}

// rules is the import table in order, the innermost layer first.
type rules []layer

var backticked = regexp.MustCompile("`([^`]+)`")

// readRules parses the table that follows the heading "Which package may import which".
func readRules(path string) (rules, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rs rules
	inSection, inTable := false, false
	sc := bufio.NewScanner(f)
	for line := 0; sc.Scan(); {
		line++
		text := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(text, "#"):
			inSection = strings.Contains(text, "Which package may import which")
			continue
		case !inSection:
			continue
		case !strings.HasPrefix(text, "|"):
			if inTable {
				return rs, nil
			}
			continue
		}
		cells := strings.Split(strings.Trim(text, "|"), "|")
		if len(cells) != 3 {
			return nil, fmt.Errorf("%s:%d: a row of the import table has %d cells, want 3", path, line, len(cells))
		}
		if !inTable { // the header row, then the delimiter row
			inTable = true
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(cells[0]), "---") {
			continue
		}
		l := layer{name: strings.TrimSpace(cells[0]), within: map[string][]string{}}
		for _, m := range backticked.FindAllStringSubmatch(cells[1], -1) {
			l.patterns = append(l.patterns, m[1])
		}
		if len(l.patterns) == 0 {
			return nil, fmt.Errorf("%s:%d: layer %q names no package", path, line, l.name)
		}
		within := strings.TrimSpace(cells[2])
		if within == "any" {
			l.any = true
		} else if within != "" {
			for _, rule := range strings.Split(within, ";") {
				from, to, ok := strings.Cut(rule, "→")
				fm := backticked.FindStringSubmatch(from)
				if !ok || fm == nil {
					return nil, fmt.Errorf("%s:%d: %q is not of the form `a` → `b`, `c`", path, line, strings.TrimSpace(rule))
				}
				for _, m := range backticked.FindAllStringSubmatch(to, -1) {
					l.within[fm[1]] = append(l.within[fm[1]], m[1])
				}
			}
		}
		rs = append(rs, l)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("%s: no import table under a heading \"Which package may import which\"", path)
	}
	return rs, nil
}

// matches reports whether pkg (module-relative) is matched by pattern, and how
// specifically: the pattern's length, so that the longest match wins.
func matches(pattern, pkg string) (int, bool) {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		if pkg == base || strings.HasPrefix(pkg, base+"/") {
			return len(base), true
		}
		return 0, false
	}
	return len(pattern), pkg == pattern
}

// place returns the index of pkg's layer, -1 if no row names it.
func (rs rules) place(pkg string) int {
	best, at := -1, -1
	for i, l := range rs {
		for _, p := range l.patterns {
			if n, ok := matches(p, pkg); ok && n > best {
				best, at = n, i
			}
		}
	}
	return at
}

// violations checks a graph of module-relative packages and their module-internal
// imports against the rules, and returns what breaks them.
func (rs rules) violations(graph map[string][]string) []string {
	var out []string
	pkgs := make([]string, 0, len(graph))
	for p := range graph {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		from := rs.place(p)
		if from < 0 {
			out = append(out, fmt.Sprintf("%s is in no layer of the table", p))
			continue
		}
		for _, imp := range graph[p] {
			to := rs.place(imp)
			switch {
			case to < 0:
				out = append(out, fmt.Sprintf("%s imports %s, which is in no layer", p, imp))
			case to > from:
				out = append(out, fmt.Sprintf("%s (layer %s) imports %s of layer %s, further out", p, rs[from].name, imp, rs[to].name))
			case to == from && !rs[from].any && !rs.allowedWithin(from, p, imp):
				out = append(out, fmt.Sprintf("%s imports %s of its own layer %s, which the table does not allow", p, imp, rs[from].name))
			}
		}
	}
	return out
}

func (rs rules) allowedWithin(layer int, from, to string) bool {
	for src, targets := range rs[layer].within {
		if _, ok := matches(src, from); !ok {
			continue
		}
		for _, t := range targets {
			if _, ok := matches(t, to); ok {
				return true
			}
		}
	}
	return false
}

// moduleGraph lists the module's packages and their (non-test) imports within the
// module, by `go list`.
func moduleGraph(t *testing.T, root string) map[string][]string {
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	require.NoError(t, err, "go list ./...")
	graph := map[string][]string{}
	rel := func(p string) (string, bool) {
		if p == module {
			return ".", true
		}
		return strings.CutPrefix(p, module+"/")
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, ok := rel(fields[0])
		require.True(t, ok, "go list printed a package outside the module: %s", fields[0])
		graph[pkg] = []string{}
		for _, imp := range fields[1:] {
			if r, ok := rel(imp); ok {
				graph[pkg] = append(graph[pkg], r)
			}
		}
	}
	return graph
}

// docs/architecture.md states which package may import which; every package of the
// module keeps to it.
func TestArchitectureImports(t *testing.T) {
	root := Root(t)
	rs, err := readRules(filepath.Join(root, "docs", "architecture.md"))
	require.NoError(t, err)
	graph := moduleGraph(t, root)
	require.Greater(t, len(graph), 20, "go list found the module's packages")
	require.Empty(t, rs.violations(graph), "imports that break docs/architecture.md's table")
}

// The check itself fails on each kind of violation, planted in the real graph.
func TestArchitectureFindsPlantedViolations(t *testing.T) {
	root := Root(t)
	rs, err := readRules(filepath.Join(root, "docs", "architecture.md"))
	require.NoError(t, err)
	real := moduleGraph(t, root)
	for _, c := range []struct{ name, from, to, want string }{
		{"outward", "minhash", "pipeline", "further out"},
		{"into a stage", "io/source", "pipeline/internal/pairs", "further out"},
		{"between stages", "pipeline/internal/pairs", "pipeline/internal/cluster", "does not allow"},
		{"between algorithms", "jaccard", "shingleset", "does not allow"},
		{"unplaced", "pipeline", "nowhere/new", "in no layer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			graph := map[string][]string{}
			for p, imps := range real {
				graph[p] = imps
			}
			graph[c.from] = append(slices.Clip(graph[c.from]), c.to)
			v := rs.violations(graph)
			require.Len(t, v, 1, "one planted import, one violation: %v", v)
			require.Contains(t, v[0], c.want)
		})
	}
}
