//go:build unix

package ingest_test

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
