package sqlite_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/sqlite"
	"github.com/carryover-dev/carryover/storetest"
)

// foreignDB writes another application's SQLite database at path, in
// rollback-journal mode, with application id id (0 for none), mode 0644.
func foreignDB(t *testing.T, path string, id int) []byte {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)",
		"INSERT INTO moz_places (url) VALUES ('https://example.com/')",
		"PRAGMA user_version = 3",
		"PRAGMA application_id = " + strconv.Itoa(id),
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestForeignFilesLeftAlone: Open, read-write or read-only, refuses
// another application's database (marked or not), a database with
// carryover's tables but a version carryover never wrote, and a plain
// file, with ErrNotStore and the path; the file keeps its bytes and mode,
// and no -wal, -shm or journal appears beside it.
func TestForeignFilesLeftAlone(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	files := map[string][]byte{}
	marked := filepath.Join(dir, "marked.sqlite")
	files[marked] = foreignDB(t, marked, 0x4d6f7a21)
	unmarked := filepath.Join(dir, "places.sqlite")
	files[unmarked] = foreignDB(t, unmarked, 0)
	plain := filepath.Join(dir, "notes.txt")
	files[plain] = []byte("my notes, not a database\n")
	os.WriteFile(plain, files[plain], 0o644)
	// carryover's tables under another version: not something carryover wrote.
	lookalike := filepath.Join(dir, "lookalike.db")
	openStore(t, lookalike).Close()
	if _, err := rawDB(t, lookalike).Exec("PRAGMA application_id = 0; PRAGMA user_version = 0; PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE"); err != nil {
		t.Fatal(err)
	}
	os.Chmod(lookalike, 0o644)
	data, err := os.ReadFile(lookalike)
	if err != nil {
		t.Fatal(err)
	}
	files[lookalike] = data

	for path, want := range files {
		for _, ro := range []bool{false, true} {
			st, err := sqlite.Open(ctx, path, sqlite.Options{ReadOnly: ro})
			if err == nil {
				st.Close()
				t.Errorf("%s (read-only %v): opened", filepath.Base(path), ro)
				continue
			}
			if !errors.Is(err, sqlite.ErrNotStore) || !strings.Contains(err.Error(), path) {
				t.Errorf("%s (read-only %v): %v, want ErrNotStore naming the file", filepath.Base(path), ro, err)
			}
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
			t.Errorf("%s: content changed", filepath.Base(path))
		}
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode changed to %v", filepath.Base(path), fi.Mode().Perm())
		}
		for _, side := range []string{"-wal", "-shm", "-journal"} {
			if _, err := os.Lstat(path + side); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s%s left behind", filepath.Base(path), side)
			}
		}
		if err := sqlite.Owned(ctx, path); !errors.Is(err, sqlite.ErrNotStore) {
			t.Errorf("Owned(%s) = %v, want ErrNotStore", filepath.Base(path), err)
		}
	}
	if _, err := sqlite.MoveAside(marked, time.Now()); !errors.Is(err, sqlite.ErrNotStore) {
		t.Errorf("MoveAside of another application's database: %v, want ErrNotStore", err)
	}
}

// applicationID reads the marker through SQLite (the log included).
func applicationID(t *testing.T, path string) int64 {
	t.Helper()
	var id int64
	if err := rawDB(t, path).QueryRow("PRAGMA application_id").Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestStoresAreMarked: a new store, also one made in an empty file, carries
// the marker; a store made before the marker opens read-only as it is and
// gets the marker on its first read-write open; Owned says which files are
// stores.
func TestStoresAreMarked(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	fresh := filepath.Join(dir, "fresh.db")
	openStore(t, fresh).Close()
	if id := applicationID(t, fresh); id != sqlite.ApplicationID {
		t.Errorf("new store: application_id %#x", id)
	}
	empty := filepath.Join(dir, "empty.db")
	os.WriteFile(empty, nil, 0o600)
	if err := sqlite.Owned(ctx, empty); !errors.Is(err, sqlite.ErrNotStore) {
		t.Errorf("Owned(empty file) = %v, want ErrNotStore", err)
	}
	openStore(t, empty).Close()
	if id := applicationID(t, empty); id != sqlite.ApplicationID {
		t.Errorf("store made in an empty file: application_id %#x", id)
	}

	legacy := filepath.Join(dir, "legacy.db")
	st := openStore(t, legacy)
	if err := st.Apply(ctx, storetest.Batch("s", "/p", 0, 2)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if _, err := rawDB(t, legacy).Exec("PRAGMA application_id = 0"); err != nil {
		t.Fatal(err)
	}
	ro, err := sqlite.Open(ctx, legacy, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only open of a store made before the marker: %v", err)
	}
	ro.Close()
	if id := applicationID(t, legacy); id != 0 {
		t.Errorf("a read-only open marked the store: %#x", id)
	}
	if err := sqlite.Owned(ctx, legacy); err != nil {
		t.Errorf("Owned(store made before the marker) = %v", err)
	}
	rw := openStore(t, legacy)
	if ss, err := rw.Chunks(ctx, carryover.ChunkFilter{SessionID: "s", Turn: -1}); err != nil || len(ss) != 2 {
		t.Errorf("store made before the marker: %d chunks, %v", len(ss), err)
	}
	rw.Close()
	if id := applicationID(t, legacy); id != sqlite.ApplicationID {
		t.Errorf("store made before the marker, after a read-write open: application_id %#x", id)
	}
	for _, p := range []string{fresh, empty, legacy} {
		if err := sqlite.Owned(ctx, p); err != nil {
			t.Errorf("Owned(%s) = %v", filepath.Base(p), err)
		}
	}
	if err := sqlite.Owned(ctx, filepath.Join(dir, "missing.db")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Owned(missing) = %v, want ErrNotExist", err)
	}
}

// crashedWALDB leaves at path another application's database in WAL mode as
// that application leaves it when it dies: committed rows still in the
// -wal, not yet checkpointed into the file. It returns the bytes of the
// file and of its log.
func crashedWALDB(t *testing.T, path string) (db, wal []byte) {
	t.Helper()
	live := filepath.Join(t.TempDir(), "live.sqlite")
	conn := rawDB(t, live)
	conn.SetMaxOpenConns(1)
	for _, q := range []string{
		"PRAGMA journal_mode = WAL",
		"PRAGMA wal_autocheckpoint = 0",
		"CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)",
		"INSERT INTO moz_places (url) VALUES ('https://example.com/')",
	} {
		if _, err := conn.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// A copy taken while the application still runs is what a crash leaves.
	for _, side := range []string{"", "-wal"} {
		data, err := os.ReadFile(live + side)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path+side, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if side == "" {
			db = data
		} else {
			wal = data
		}
	}
	if len(wal) == 0 {
		t.Fatal("the log is empty: nothing to check")
	}
	return db, wal
}

// TestForeignWALLeftAlone: another application's database in WAL mode with
// rows still in its -wal is refused, read-write or read-only, without being
// checkpointed: the file and its log keep their bytes (and its -shm: see
// TestForeignWALSideFilesLeftAlone).
func TestForeignWALLeftAlone(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "places.sqlite")
	db, wal := crashedWALDB(t, path)
	for _, ro := range []bool{true, false} {
		st, err := sqlite.Open(ctx, path, sqlite.Options{ReadOnly: ro})
		if err == nil {
			st.Close()
			t.Fatalf("read-only %v: opened another application's database", ro)
		}
		if !errors.Is(err, sqlite.ErrNotStore) {
			t.Errorf("read-only %v: %v, want ErrNotStore", ro, err)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, db) {
			t.Errorf("read-only %v: the database file changed", ro)
		}
		if got, err := os.ReadFile(path + "-wal"); err != nil || !bytes.Equal(got, wal) {
			t.Errorf("read-only %v: the log changed or went (%v): its rows were checkpointed into the file", ro, err)
		}
	}
}
