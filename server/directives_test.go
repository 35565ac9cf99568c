package server

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/config"
)

// TestEveryParameterHandled walks the whole parameter table: each
// parameter is read by the code (its name appears as a string in a
// non-test file outside the table itself), or is listed in unreadParams
// with the reason it is accepted; none is both, and none is silently
// ignored.
func TestEveryParameterHandled(t *testing.T) {
	named := map[string]bool{}
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "third_party" || d.Name() == "clients" || d.Name() == "compat" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
			path == filepath.Join(root, "config", "params.go") || path == filepath.Join(root, "server", "directives.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					named[s] = true
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	params := map[string]bool{}
	for _, p := range cfg.Params() {
		name := p.Name()
		params[name] = true
		why, listed := unreadParams[name]
		switch {
		case named[name] && listed:
			t.Errorf("%s is read by the code but listed as unread (%s)", name, why)
		case !named[name] && !listed:
			t.Errorf("%s is accepted but nothing reads it: carry it out, refuse it, or list it in unreadParams with why", name)
		}
	}
	for name := range unreadParams {
		if !params[name] {
			t.Errorf("unreadParams lists %s, which is no parameter", name)
		}
	}
}
