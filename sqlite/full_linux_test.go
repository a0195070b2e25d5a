package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/carryover-dev/carryover/sqlite"
)

// TestCreateOnFullDisk creates a store on a small tmpfs left with no room,
// or a few pages, or no inode: every failure is ErrFull, which the CLI
// explains. With a few pages left SQLite could not grow the new store's
// -shm and said only "disk I/O error"; with no inode left, making the
// store's folder failed with the OS's error. Mounting needs root.
func TestCreateOnFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	for _, c := range []struct {
		name      string
		opts      string
		freePages int
	}{
		{"no room", "size=256k", 0},
		{"one page", "size=256k", 1},
		{"four pages", "size=256k", 4},
		{"eight pages", "size=256k", 8},
		{"no inode", "size=1m,nr_inodes=2", -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			mnt := t.TempDir()
			if out, err := exec.Command("mount", "-t", "tmpfs", "-o", c.opts, "tmpfs", mnt).CombinedOutput(); err != nil {
				t.Skipf("mount tmpfs: %v %s", err, out)
			}
			t.Cleanup(func() { exec.Command("umount", mnt).Run() })
			fillDisk(t, filepath.Join(mnt, "filler"), c.freePages)
			path := filepath.Join(mnt, "store", "carryover.db")
			st, err := sqlite.Open(context.Background(), path, sqlite.Options{})
			if err == nil {
				st.Close()
				t.Fatal("a store was created on a full disk")
			}
			if !errors.Is(err, sqlite.ErrFull) {
				t.Errorf("Open on a full disk = %v, want ErrFull", err)
			}
		})
	}
}

// fillDisk takes all the room at path's file system but freePages pages (all
// but one inode for freePages < 0).
func fillDisk(t *testing.T, path string, freePages int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if freePages < 0 {
		return
	}
	page := make([]byte, os.Getpagesize())
	for {
		if _, err := f.Write(page); err != nil {
			break // ENOSPC
		}
	}
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(fi.Size() - int64(freePages*len(page))); err != nil {
		t.Fatal(err)
	}
}

// TestDiskFullErrors: the OS's "no space left" is ErrFull; other errors
// are not.
func TestDiskFullErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		err  error
		full bool
	}{
		{&fs.PathError{Op: "mkdir", Path: dir, Err: syscall.ENOSPC}, true},
		{fmt.Errorf("create: %w", &fs.PathError{Op: "open", Path: dir, Err: syscall.ENOSPC}), true},
		{&fs.PathError{Op: "open", Path: dir, Err: syscall.EACCES}, false},
		{errors.New("no space left on device"), false},
	} {
		if got := errors.Is(sqlite.DiskFull(filepath.Join(dir, "carryover.db"), c.err), sqlite.ErrFull); got != c.full {
			t.Errorf("%v: ErrFull %v, want %v", c.err, got, c.full)
		}
	}
}
