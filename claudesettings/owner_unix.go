//go:build unix

package claudesettings

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// keepOwner gives tmp, about to replace path, the owner and group of the
// file at path. A file replaced by someone else (root running install with
// a user's HOME) would otherwise end up theirs, and its owner could no
// longer edit it. When the owner cannot be kept the replacement is
// refused: the file stays as it was.
func keepOwner(tmp *os.File, path string) error {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil // a new file is the caller's; Save checks the rest
	}
	want, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	tfi, err := tmp.Stat()
	if err != nil {
		return err
	}
	if got, ok := tfi.Sys().(*syscall.Stat_t); ok && got.Uid == want.Uid && got.Gid == want.Gid {
		return nil
	}
	if err := tmp.Chown(int(want.Uid), int(want.Gid)); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // not the temporary file's name
		}
		return fmt.Errorf("cannot keep its owner %d:%d (edit it as that user): %w", want.Uid, want.Gid, err)
	}
	return nil
}
