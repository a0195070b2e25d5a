//go:build !unix

package ingest_test

import "testing"

// mkfifo skips the test: there are no named pipes in the file system here.
func mkfifo(t *testing.T, _ string) {
	t.Helper()
	t.Skip("no FIFOs on this system")
}
