//go:build !unix

// Package posixtest gives tests the POSIX file-system calls they need
// (named pipes, the umask), skipping the test where the system has none.
package posixtest

import "testing"

// Mkfifo skips the test: there are no named pipes in the file system here.
func Mkfifo(t testing.TB, _ string) {
	t.Helper()
	t.Skip("no FIFOs on this system")
}

// Umask skips the test: file modes are POSIX's.
func Umask(t testing.TB, _ int) {
	t.Helper()
	t.Skip("no POSIX file modes on this system")
}
