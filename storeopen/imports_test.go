package storeopen_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCallersImportNoAdapter keeps the store's adapters behind this
// package: the code (tests aside, which use the adapters on purpose) of
// the packages that open a store imports neither, whatever its build tags.
func TestCallersImportNoAdapter(t *testing.T) {
	adapters := map[string]bool{
		"github.com/carryover-dev/carryover/sqlite":   true,
		"github.com/carryover-dev/carryover/postgres": true,
	}
	for _, dir := range []string{"hook", "bench", "doctor", "install", "statusline", "cmd/carryover"} {
		files, err := filepath.Glob(filepath.Join("..", dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Fatalf("%s: no Go files", dir)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range af.Imports {
				if p, _ := strconv.Unquote(imp.Path.Value); adapters[p] {
					t.Errorf("%s imports %s: open the store through storeopen", filepath.ToSlash(f), p)
				}
			}
		}
	}
}
