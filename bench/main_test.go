package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/carryover-dev/carryover/internal/skipnote"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if _, err := os.Stat(filepath.Join("..", "..", "shared")); err != nil {
		skipnote.Print("the benchmarks' tests on real transcripts (no ../shared beside the repository)",
			"they run where the shared data sits beside the clone")
	}
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

// carryoverBinary builds the carryover binary once for the test run, as
// users install it.
func carryoverBinary(tb testing.TB) string {
	tb.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "carryover-bench-bin-"); binErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(binDir, "carryover"), "../cmd/carryover").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		tb.Fatal(binErr)
	}
	return filepath.Join(binDir, "carryover")
}

// sharedDir returns a directory of the shared data beside the repository,
// skipping the test when it is absent unless CI=true.
func sharedDir(tb testing.TB, elem ...string) string {
	tb.Helper()
	dir := filepath.Join(append([]string{"..", "..", "shared"}, elem...)...)
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("shared data missing at %s: %v", dir, err)
		}
		tb.Skipf("shared data not found at %s (a checkout of the repository alone has none)", dir)
	}
	return dir
}
