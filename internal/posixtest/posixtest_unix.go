//go:build unix

// Package posixtest gives tests the POSIX file-system calls they need
// (named pipes, the umask), skipping the test where the system has none.
package posixtest

import (
	"syscall"
	"testing"
)

// Mkfifo makes a named pipe at path for a test of what refuses one.
func Mkfifo(t testing.TB, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}

// Umask sets the process's umask for the test, which checks the modes
// files are created with whatever it lets through.
func Umask(t testing.TB, mask int) {
	old := syscall.Umask(mask)
	t.Cleanup(func() { syscall.Umask(old) })
}
