//go:build unix

package main

import (
	"syscall"
	"testing"
)

// mkfifo makes a named pipe at path for a test of what refuses one.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}

// umask sets the process's umask for the test, which checks the modes
// files are created with whatever it lets through.
func umask(t *testing.T, mask int) {
	old := syscall.Umask(mask)
	t.Cleanup(func() { syscall.Umask(old) })
}
