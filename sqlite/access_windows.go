package sqlite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// writable reports whether this process may write path. A file's
// read-only attribute is what Go reports as a mode without write
// permission; a directory's read-only attribute means nothing to Windows
// (Explorer sets it on folders it customises), so a directory is taken as
// writable and SQLite says when its access list says otherwise.
func writable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && (fi.IsDir() || fi.Mode().Perm()&0o200 != 0)
}

// readable reports whether this process may open path for reading: the
// file's access list decides, so it is asked by opening it.
func readable(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// ownedByMe is true: the files of a user's profile are the user's, and
// Windows decides access by access lists, not by an owner's mode bits.
func ownedByMe(fs.FileInfo) bool { return true }

func ownerNote(fs.FileInfo) string { return "" }

// makePrivate does nothing here: a store under the user's profile is
// private by the profile's access list, and Windows has no mode bits for
// others to take away (chmod only sets the read-only attribute).
func makePrivate(string) {}

// lockName is the file in the store's directory that processes moving a
// damaged store aside lock: Windows locks byte ranges of files, not
// directories. It is created once and left in place; removing it would
// let two processes lock two different files of that name.
const lockName = ".carryover.lock"

// lockDir takes an exclusive lock (LockFileEx, released when the process
// exits) on the lock file in the directory dir, waiting for another
// holder, and returns its release.
func lockDir(dir string) (func(), error) {
	path := filepath.Join(dir, lockName)
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("lock %s: %w", path, errors.New("not a regular file"))
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	h := windows.Handle(f.Fd())
	ol := new(windows.Overlapped)
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, ol); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() {
		_ = windows.UnlockFileEx(h, 0, 1, 0, ol)
		f.Close()
	}, nil
}

// allowWrite is the command that lets this user write the file at path:
// clearing its read-only attribute.
func allowWrite(path string) string { return "attrib -R " + cmdQuote(path) }

// allowReadWrite is the command that gives the file at path the access
// its folder gives (in a user's profile: that user's), in cmd.exe and
// PowerShell alike; a file another user made may need an administrator.
func allowReadWrite(path string) string { return "icacls " + cmdQuote(path) + " /reset" }

// removeCmd is the command that removes the file at path.
func removeCmd(path string) string { return "del " + cmdQuote(path) }

// cmdQuote quotes a path for cmd.exe and PowerShell: in double quotes,
// which a Windows file name cannot hold.
func cmdQuote(path string) string { return `"` + path + `"` }
