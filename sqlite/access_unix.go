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
