package skipnote

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestHelperPrint is the package a child go test runs: it prints a note.
func TestHelperPrint(t *testing.T) {
	if os.Getenv("SKIPNOTE_HELPER") != "1" {
		t.Skip("helper for TestNoteSurvivesPipe")
	}
	Print("the helper suite (a test of skipnote)", "nothing to run")
}

// TestNoteSurvivesPipe runs go test on this package in a new session (no
// terminal) with its output piped, as a CI log or an agent's shell would:
// the note must still be in the output, though go test shows nothing else
// of a passing package.
func TestNoteSurvivesPipe(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short: runs go test")
	}
	cmd := exec.Command("go", "test", "-count=1", "-run", "^TestHelperPrint$", ".")
	cmd.Env = append(os.Environ(), "SKIPNOTE_HELPER=1", "CI=")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "go test: skipped the helper suite (a test of skipnote); nothing to run\n") {
		t.Errorf("the note did not reach the pipe:\n%s", out)
	}
}
