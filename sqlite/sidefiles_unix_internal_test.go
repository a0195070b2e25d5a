//go:build unix

package sqlite

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/carryover-dev/carryover/storetest"
)

// sideFilesDir hands the test's folder to the run of the test binary as
// an unprivileged user.
const sideFilesDir = "CARRYOVER_TEST_SIDE_FILES_DIR"

// nobody is who the test runs as when it runs as root, which file modes
// do not stop.
const nobody = 65534

// TestUnreadableSideFilesRepaired: a store whose -wal and -shm this user
// owns but cannot read (mode 0000) opened read-write before: SQLite could
// not open them, and Open failed. It now gives them mode 0600 again
// before SQLite reads anything, and the log's writes are there; a
// symbolic link is never followed. A new store, its marker still in its
// log, may not be carryover's: Open fails and says what to do. Another user's unreadable -shm is
// left as it is: the store opens read-only, and CheckWrite says whose the
// file is and what to do. As root the test runs itself
// again as nobody; without root it has no other user's file to try.
func TestUnreadableSideFilesRepaired(t *testing.T) {
	if dir := os.Getenv(sideFilesDir); dir != "" {
		unreadableSideFiles(t, dir, os.Getenv(sideFilesDir+"_OTHER") != "")
		return
	}
	if os.Geteuid() != 0 {
		unreadableSideFiles(t, t.TempDir(), false)
		t.Log("not root: another user's side files not tried")
		return
	}
	dir := t.TempDir()
	for d := filepath.Dir(dir); d != filepath.Dir(d) && d != filepath.Clean(os.TempDir()); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil { // the test's own folders, so nobody can reach dir
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// The test binary may sit in a folder only root can read.
	exe := filepath.Join(dir, "sqlite.test")
	copyExe(t, os.Args[0], exe)
	work := filepath.Join(dir, "store")
	if err := os.Mkdir(work, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(work, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	asNobody := func(other bool) {
		t.Helper()
		cmd := exec.Command(exe, "-test.run=^TestUnreadableSideFilesRepaired$", "-test.v")
		cmd.Env = append(os.Environ(), sideFilesDir+"="+work)
		if other {
			cmd.Env = append(cmd.Env, sideFilesDir+"_OTHER=1")
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("as nobody: %v\n%s", err, out)
		}
		t.Logf("as nobody:\n%s", out)
	}
	asNobody(false)
	// Another user's unreadable index: root's.
	shm := filepath.Join(work, "carryover.db-shm")
	if err := os.WriteFile(shm, make([]byte, 32<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shm, 0); err != nil {
		t.Fatal(err)
	}
	asNobody(true)
	if fi, err := os.Lstat(shm); err != nil || fi.Mode().Perm() != 0 || fi.Sys().(*syscall.Stat_t).Uid != 0 {
		t.Errorf("another user's -shm was changed: %v %v", fi.Mode(), err)
	}
}

// unreadableSideFiles is the test, run as a user file modes apply to.
// other: dir holds the store this test made before, and an unreadable
// -shm of another user's.
func unreadableSideFiles(t *testing.T, dir string, other bool) {
	ctx := context.Background()
	path := filepath.Join(dir, "carryover.db")
	if other {
		var nw *NotWritableError
		if err := CheckWrite(path); !errors.As(err, &nw) || nw.Path != path+"-shm" || !strings.Contains(nw.Reason, "cannot read") ||
			!strings.Contains(nw.Reason, "owned by uid 0") || !strings.Contains(nw.Fix, "rm ") {
			t.Errorf("CheckWrite = %v, want the -shm named, whose it is, and a fix", err)
		}
		// The store opens read-only, without the index: reads work.
		st, err := Open(ctx, path, Options{})
		if err != nil {
			t.Fatalf("another user's unreadable -shm: %v", err)
		}
		defer st.Close()
		if _, err := st.Session(ctx, "in-the-log"); err != nil {
			t.Errorf("read beside another user's -shm: %v", err)
		}
		if err := st.Apply(ctx, storetest.Batch("s2", "/p", 0, 1)); err == nil {
			t.Error("a write went through beside another user's -shm")
		}
		return
	}
	// A new store's marker is still in its log: Open cannot tell it is
	// carryover's, and says what to do.
	fresh := filepath.Join(dir, "fresh.db")
	unreadableInUse(t, fresh, false)
	if _, err := Open(ctx, fresh, Options{}); err == nil || !strings.Contains(err.Error(), "cannot read beside the store (mode 0000)") ||
		!strings.Contains(err.Error(), "to fix: chmod u+rw "+fresh+"-") {
		t.Errorf("a new store's unreadable side files: Open = %v, want what to do", err)
	}
	unreadableInUse(t, path, true)
	st, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatalf("Open with unreadable -wal and -shm of this user's: %v", err)
	}
	if _, err := st.Session(ctx, "in-the-log"); err != nil {
		t.Errorf("the log's write: %v", err)
	}
	for _, side := range []string{"-wal", "-shm"} {
		if fi, err := os.Lstat(path + side); err == nil && fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %04o, want 0600", side, fi.Mode().Perm())
		}
	}
	st.Close()

	// A link is not followed, even to a file of this user's.
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("x"), 0); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := chmodOwn(link, 0o600); err == nil {
		t.Error("chmodOwn changed a symbolic link's target")
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0 {
		t.Errorf("the link's target: mode %04o, want 0000", fi.Mode().Perm())
	}
	os.Remove(link)
	os.Remove(target)
}

// unreadableInUse makes the store at path with a write in its log, its
// -wal and -shm on disk as a store in use has them, with mode 0000. closed:
// the store was closed once before, which put its marker in its header.
func unreadableInUse(t *testing.T, path string, closed bool) {
	t.Helper()
	ctx := context.Background()
	st, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if closed {
		st.Close()
		if st, err = Open(ctx, path, Options{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Apply(ctx, storetest.Batch("in-the-log", "/p", 0, 3)); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, side := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(path + side)
		if err != nil || len(b) == 0 {
			t.Fatalf("%s: %d bytes, %v", side, len(b), err)
		}
		files[side] = b
	}
	st.Close()
	for side, b := range files {
		if err := os.WriteFile(path+side, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if side != "" {
			if err := os.Chmod(path+side, 0); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func copyExe(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var b bytes.Buffer
	if _, err := io.Copy(&b, src); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b.Bytes(), 0o755); err != nil {
		t.Fatal(err)
	}
}
