// Package skipnote tells whoever runs `go test ./...` which suites were
// skipped for want of something outside the repository (the Claude Code
// CLI, a PostgreSQL server, the shared data) and how to run them. go test
// shows nothing of a passing package but "ok", so the note goes straight to
// the controlling terminal; without one (CI, a pipe) there is no reader
// to tell, and nothing is written.
package skipnote

import (
	"fmt"
	"os"
)

// Print writes "go test: skipped WHAT; HOW" on the terminal, once per call.
// Under CI=true it writes nothing: there a missing dependency fails the
// tests instead of skipping them.
func Print(what, how string) {
	if os.Getenv("CI") == "true" {
		return
	}
	tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		return
	}
	defer tty.Close()
	fmt.Fprintf(tty, "go test: skipped %s; %s\n", what, how)
}
