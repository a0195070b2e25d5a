package sqlite

import (
	"errors"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// chmodOwn sets the permissions of the regular file at path that this user
// owns, never through a symbolic link: the file is opened without
// following one (O_PATH opens even a file its mode lets no one read) and
// changed through its descriptor.
func chmodOwn(path string, mode os.FileMode) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || int(st.Uid) != os.Getuid() {
		return &os.PathError{Op: "chmod", Path: path, Err: errors.New("not a regular file of this user's")}
	}
	// fchmod refuses an O_PATH descriptor; its /proc link reaches the same
	// file, whatever now has its name.
	return os.Chmod("/proc/self/fd/"+strconv.Itoa(fd), mode)
}

// noSpace reports whether the file system holding dir has less than a
// megabyte left for this user: SQLite reports some writes that found no
// room as I/O errors (growing the -shm, for one).
func noSpace(dir string) bool {
	var st syscall.Statfs_t
	return syscall.Statfs(dir, &st) == nil && st.Bavail*uint64(st.Bsize) < 1<<20
}
