//go:build !windows

package sqlite

import "os"

// makePrivate takes the group's and others' permissions off a carryover
// store readable by them (best effort: it may belong to someone else). The
// owner's stay as they are: a store made read-only stays read-only.
func makePrivate(path string) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o077 != 0 {
		_ = os.Chmod(path, fi.Mode().Perm()&0o700)
	}
}

// allowWrite is the command that lets this user write path.
func allowWrite(path string) string { return "chmod u+w " + shellQuote(path) }

// allowReadWrite is the command that lets this user read and write path.
func allowReadWrite(path string) string { return "chmod u+rw " + shellQuote(path) }

// removeCmd is the command that removes the file at path.
func removeCmd(path string) string { return "rm " + shellQuote(path) }
