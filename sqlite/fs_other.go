//go:build !linux

package sqlite

import (
	"errors"
	"os"
)

// chmodOwn sets the permissions of the regular file at path that this
// user owns, and not of a symbolic link's target: without Linux's O_PATH
// the file is checked just before, and a link put in its place in between
// would be followed.
func chmodOwn(path string, mode os.FileMode) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() || !ownedByMe(fi) {
		return &os.PathError{Op: "chmod", Path: path, Err: errors.New("not a regular file of this user's")}
	}
	return os.Chmod(path, mode)
}

// noSpace does not look at the file system here: a disk found full is one
// SQLite or the OS reports as such.
func noSpace(string) bool { return false }
