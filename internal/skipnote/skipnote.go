// Package skipnote tells whoever runs `go test ./...` which suites were
// skipped for want of something outside the repository (the Claude Code
// CLI, a PostgreSQL server, the shared data) and how to run them. go test
// shows nothing of a passing package but "ok", so the note goes to the go
// command's own standard error when the test binary can reach it (Linux:
// through /proc), which survives pipes and redirection (go test ./... 2>&1
// | tee log); else to the controlling terminal; else to the test binary's
// standard error, which go test shows with -v.
package skipnote

import (
	"fmt"
	"io"
	"os"
)

// Print writes "go test: skipped WHAT; HOW" once per call. Under CI=true
// it writes nothing: there a missing dependency fails the tests instead of
// skipping them.
func Print(what, how string) {
	if os.Getenv("CI") == "true" {
		return
	}
	w, done := output()
	defer done()
	write(w, what, how)
}

func write(w io.Writer, what, how string) {
	fmt.Fprintf(w, "go test: skipped %s; %s\n", what, how)
}

// output is where the note goes, and what closes it.
func output() (io.Writer, func()) {
	if f := goStderr(); f != nil {
		return f, func() { f.Close() }
	}
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		return tty, func() { tty.Close() }
	}
	return os.Stderr, func() {}
}
