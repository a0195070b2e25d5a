//go:build !linux

package skipnote

import "os"

// goStderr is nil where the go command's standard error cannot be reached
// from the test binary: the note goes to the terminal instead.
func goStderr() *os.File { return nil }
