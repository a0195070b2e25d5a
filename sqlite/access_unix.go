//go:build unix

package sqlite

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// writable reports whether this process may write path (a file or a
// directory), by the kernel's own check: root may write anything.
func writable(path string) bool {
	const wOK = 2 // W_OK
	return syscall.Access(path, wOK) == nil
}

// readable reports whether this process may read path, by the kernel's
// own check.
func readable(path string) bool {
	const rOK = 4 // R_OK
	return syscall.Access(path, rOK) == nil
}

// ownedByMe reports whether this process's user owns the file.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// ownerNote names the owner of a file this user does not own.
func ownerNote(fi fs.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Sprintf(", owned by uid %d", st.Uid)
	}
	return ""
}

// lockDir takes an exclusive lock on the directory dir (flock, released
// when the process exits), waiting for another holder, and returns its
// release.
func lockDir(dir string) (func(), error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	// Closing the last descriptor of the open file releases the lock.
	return func() { f.Close() }, nil
}
