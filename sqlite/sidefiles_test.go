package sqlite_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/carryover-dev/carryover/sqlite"
)

// liveWALDB writes another application's database in WAL mode at path
// while that application still has it open, as carryover finds it then:
// rows in the -wal, and the -shm index (when shm). fresh leaves the
// tables in the log alone, the file itself empty (a database made in WAL
// mode and never checkpointed).
func liveWALDB(t *testing.T, path string, shm, fresh bool) {
	t.Helper()
	live := filepath.Join(t.TempDir(), "live.sqlite")
	conn := rawDB(t, live)
	conn.SetMaxOpenConns(1)
	qs := []string{"PRAGMA journal_mode = WAL", "PRAGMA wal_autocheckpoint = 0"}
	if !fresh {
		qs = append(qs, "CREATE TABLE seed (x)", "PRAGMA wal_checkpoint(TRUNCATE)")
	}
	qs = append(qs, "CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)",
		"INSERT INTO moz_places (url) VALUES ('https://example.com/')")
	for _, q := range qs {
		if _, err := conn.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	sides := []string{"", "-wal"}
	if shm {
		sides = append(sides, "-shm")
	}
	for _, side := range sides {
		data, err := os.ReadFile(live + side)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path+side, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if fresh {
		// SQLite wrote the header when the mode changed; everything since is
		// in the log, as for a database whose file is still empty.
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

type fileState struct {
	data  []byte
	mode  os.FileMode
	mtime time.Time
}

func snapshot(path string) (fileState, bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return fileState{}, false
	}
	data, _ := os.ReadFile(path)
	return fileState{data, fi.Mode(), fi.ModTime()}, true
}

// TestForeignWALSideFilesLeftAlone: another application's WAL-mode
// database, open in that application (rows in its -wal, its -shm index
// beside it, or not yet), is refused by Open, read-write or read-only, and
// by Owned, and none of its files is created, written, chmodded or
// deleted: SQLite reading it in place would create or write its -shm, and
// a read-write connection closing would checkpoint its log and delete both.
func TestForeignWALSideFilesLeftAlone(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name       string
		shm, fresh bool
	}{{"with index", true, false}, {"no index", false, false}, {"empty file", true, true}, {"empty file no index", false, true}} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "places.sqlite")
			liveWALDB(t, path, c.shm, c.fresh)
			if c.shm {
				// A -shm this user cannot write: repairing it is carryover's
				// to do only on its own store.
				os.Chmod(path+"-shm", 0o444)
			}
			before := map[string]fileState{}
			for _, side := range []string{"", "-wal", "-shm"} {
				if st, ok := snapshot(path + side); ok {
					before[side] = st
				}
			}
			time.Sleep(10 * time.Millisecond) // a write would show in the mtime
			for _, ro := range []bool{true, false} {
				st, err := sqlite.Open(ctx, path, sqlite.Options{ReadOnly: ro})
				if err == nil {
					st.Close()
					t.Fatalf("read-only %v: opened another application's database", ro)
				}
				if !errors.Is(err, sqlite.ErrNotStore) {
					t.Errorf("read-only %v: %v, want ErrNotStore", ro, err)
				}
			}
			if err := sqlite.Owned(ctx, path); !errors.Is(err, sqlite.ErrNotStore) {
				t.Errorf("Owned: %v, want ErrNotStore", err)
			}
			for _, side := range []string{"", "-wal", "-shm"} {
				now, ok := snapshot(path + side)
				was, had := before[side]
				switch {
				case ok != had:
					t.Errorf("%q: existed %v, now %v", side, had, ok)
				case ok && (!bytes.Equal(now.data, was.data) || now.mode != was.mode || !now.mtime.Equal(was.mtime)):
					t.Errorf("%q changed: %d→%d bytes, mode %v→%v, mtime %v→%v", side, len(was.data), len(now.data), was.mode, now.mode, was.mtime, now.mtime)
				}
			}
		})
	}
}
