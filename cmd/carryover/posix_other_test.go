//go:build !unix

package main

import "testing"

// mkfifo skips the test: there are no named pipes in the file system here.
func mkfifo(t *testing.T, _ string) {
	t.Helper()
	t.Skip("no FIFOs on this system")
}

// umask skips the test: file modes are POSIX's.
func umask(t *testing.T, _ int) {
	t.Helper()
	t.Skip("no POSIX file modes on this system")
}
