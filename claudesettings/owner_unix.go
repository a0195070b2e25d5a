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
		return fmt.Errorf("%w %d:%d (edit it as that user): %w", ErrNotOwner, want.Uid, want.Gid, err)
	}
	return nil
}

// checkOwner returns an error when keepOwner would refuse to replace the
// file fi describes: this process can give a file neither another user
// (unless root) nor a group it is not in. Checked before anything is
// saved, so that an install that would be refused half-way changes nothing.
func checkOwner(fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || os.Geteuid() == 0 {
		return nil
	}
	if int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%w: owned by user %d (edit it as that user)", ErrNotOwner, st.Uid)
	}
	if int(st.Gid) == os.Getegid() {
		return nil
	}
	groups, err := os.Getgroups()
	if err != nil {
		return nil // keepOwner will say
	}
	for _, g := range groups {
		if g == int(st.Gid) {
			return nil
		}
	}
	return fmt.Errorf("%w: its group %d is not one of yours (edit it as its owner)", ErrNotOwner, st.Gid)
}
