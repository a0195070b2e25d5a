package sqlite_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover/internal/posixtest"
	"github.com/carryover-dev/carryover/sqlite"
	"github.com/carryover-dev/carryover/storetest"
)

// TestFileModes: the store, its log and index are 0600 in a 0700 directory
// whatever the umask lets through, and an existing store readable by
// others is made private.
func TestFileModes(t *testing.T) {
	posixtest.Umask(t, 0)
	dir := filepath.Join(t.TempDir(), "a", "b")
	path := filepath.Join(dir, "carryover.db")
	st := openStore(t, path)
	if err := st.Apply(context.Background(), storetest.Batch("s", "/p", 0, 3)); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", filepath.Base(p), fi.Mode().Perm())
		}
	}
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if fi, _ := os.Stat(d); fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, want 0700", d, fi.Mode().Perm())
		}
	}
	st.Close()
	os.Chmod(path, 0o644)
	openStore(t, path).Close()
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("existing store left %v", fi.Mode().Perm())
	}
}

// TestOpenRefusesBadPaths: no writing through links, no NUL, no absurd
// length, nothing but a regular file; the link's target is left untouched.
func TestOpenRefusesBadPaths(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("precious"), 0o600)
	link := filepath.Join(dir, "link.db")
	os.Symlink(target, link)
	// A store whose log path is a planted link.
	walLinked := filepath.Join(dir, "wal.db")
	openStore(t, walLinked).Close()
	os.Remove(walLinked + "-wal")
	os.Symlink(target, walLinked+"-wal")
	fifo := filepath.Join(dir, "fifo.db")
	posixtest.Mkfifo(t, fifo)
	cases := map[string]string{
		"symlink":       link,
		"symlinked log": walLinked,
		"NUL":           filepath.Join(dir, "a\x00b.db"),
		"too long":      filepath.Join(dir, strings.Repeat("d/", sqlite.MaxPathLen/2), "x.db"),
		"directory":     dir,
		"FIFO":          fifo,
	}
	for name, p := range cases {
		for _, ro := range []bool{false, true} {
			done := make(chan error, 1)
			go func() {
				st, err := sqlite.Open(context.Background(), p, sqlite.Options{ReadOnly: ro})
				if err == nil {
					st.Close()
				}
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil {
					t.Errorf("%s (read-only %v): opened", name, ro)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: Open blocked", name)
			}
		}
	}
	if data, _ := os.ReadFile(target); string(data) != "precious" {
		t.Fatalf("a link's target was written: %q", data)
	}
}

// damage overwrites the middle half of the file's pages (never the
// header page) with a pattern.
func damage(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	pages := len(data) / page
	if pages < 8 {
		t.Fatalf("store of %d pages is too small to damage", pages)
	}
	junk := bytes.Repeat([]byte{0xA5, 0x5A, 0x00, 0xFF}, page/4)
	for p := pages / 4; p < pages*3/4; p++ {
		copy(data[p*page:], junk)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestCorruptionDetected: header garbage fails Open with ErrCorrupt;
// damaged pages fail Check (quick_check) with ErrCorrupt.
func TestCorruptionDetected(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	os.WriteFile(garbage, bytes.Repeat([]byte("not a database "), 1000), 0o600)
	if _, err := sqlite.Open(ctx, garbage, sqlite.Options{}); !errors.Is(err, sqlite.ErrCorrupt) {
		t.Errorf("garbage header: %v, want ErrCorrupt", err)
	}

	path := filepath.Join(dir, "pages.db")
	st := openStore(t, path)
	for i := range 20 {
		if err := st.Apply(ctx, storetest.Batch("s", "/p", i*20, 20)); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	checkpoint(t, path)
	damage(t, path)
	st, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		if !errors.Is(err, sqlite.ErrCorrupt) {
			t.Fatalf("damaged pages: Open: %v, want ErrCorrupt", err)
		}
		return
	}
	defer st.Close()
	if _, err := st.Check(ctx); !errors.Is(err, sqlite.ErrCorrupt) {
		t.Fatalf("damaged pages: Check: %v, want ErrCorrupt", err)
	}
}

// checkpoint folds the log into the file, so that damaging the file
// damages the data.
func checkpoint(t *testing.T, path string) {
	t.Helper()
	if _, err := rawDB(t, path).Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
}

// TestMoveAside: the damaged file, its log and index move to a timestamped name,
// byte for byte; a fresh store opens in their place; a second move in the
// same second gets its own name; MovedAside lists both.
func TestMoveAside(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "carry[1]over.db")
	// Header garbage over a whole number of pages: a damaged store.
	garbage := bytes.Repeat([]byte("junk"), 2048)
	os.WriteFile(path, garbage, 0o600)
	os.WriteFile(path+"-wal", []byte("log"), 0o600)
	os.WriteFile(path+"-shm", []byte("index"), 0o600)
	journal := sqlite.JournalFiles(path)
	journalText := []string{"runs\n", "runs folding\n", "records\n", "records folding\n"}
	for i, p := range journal {
		os.WriteFile(p, []byte(journalText[i]), 0o600)
	}
	at := time.Date(2026, 11, 22, 10, 15, 0, 0, time.UTC)
	moved, err := sqlite.MoveAside(path, at)
	if err != nil {
		t.Fatal(err)
	}
	if want := path + ".corrupt-20261122T101500"; moved != want {
		t.Fatalf("moved to %s, want %s", moved, want)
	}
	if got, _ := os.ReadFile(moved); !bytes.Equal(got, garbage) {
		t.Fatal("moved file differs")
	}
	if got, _ := os.ReadFile(moved + "-wal"); string(got) != "log" {
		t.Fatal("log not moved with the file")
	}
	if got, _ := os.ReadFile(moved + "-shm"); string(got) != "index" {
		t.Fatal("index not moved with the file")
	}
	// The journal goes with its store: its injections and kept matches
	// name the old file's rows.
	for i, want := range journalText {
		if got, _ := os.ReadFile(sqlite.JournalFiles(moved)[i]); string(got) != want {
			t.Fatalf("journal file %d not moved with the store: %q", i, got)
		}
	}
	for _, p := range append([]string{path, path + "-wal", path + "-shm"}, journal...) {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still there", p)
		}
	}
	st := openStore(t, path)
	if err := st.Apply(ctx, storetest.Batch("s", "/p", 0, 2)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	second, err := sqlite.MoveAside(path, at)
	if err != nil || second == moved {
		t.Fatalf("second move: %s, %v", second, err)
	}
	list, err := sqlite.MovedAside(path)
	if err != nil || len(list) != 2 || list[0] != moved || list[1] != second {
		t.Fatalf("MovedAside = %v, %v", list, err)
	}
	// A file that never was a database (a wrong --db) is left alone.
	notes := filepath.Join(filepath.Dir(path), "notes.txt")
	os.WriteFile(notes, []byte("my notes\n"), 0o600)
	if _, err := sqlite.MoveAside(notes, at); !errors.Is(err, sqlite.ErrNotStore) {
		t.Fatalf("text file: %v, want ErrNotStore", err)
	}
	if data, _ := os.ReadFile(notes); string(data) != "my notes\n" {
		t.Fatal("text file moved or changed")
	}
}
