package hook_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/sqlite"
)

// TestDamagedStoreMovedAsideOnce runs hooks together on a store whose
// header is damaged, as Claude Code runs a turn's hooks in parallel: the
// damaged file is moved aside once and keeps its bytes. It failed two
// ways: a hook moved the fresh store another had just made in its place
// over the copy moved aside in the same second; and a hook still holding
// the damaged file took the fresh store's rollback journal for its own and
// rolled it back into that file, emptying it. Every hook writes one valid
// output or nothing, and the fresh store holds the session.
func TestDamagedStoreMovedAsideOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("repeats a race many times")
	}
	e := newEnv(t)
	var out bytes.Buffer
	e.handler().Run(context.Background(), hook.Stop, bytes.NewReader(e.payload("Stop", nil)), &out)
	good, err := os.ReadFile(e.db)
	if err != nil {
		t.Fatal(err)
	}
	damaged := bytes.Clone(good)
	copy(damaged, "not the header of a database")
	const rounds, hooks = 40, 6
	for round := range rounds {
		dir := filepath.Dir(e.db)
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(dir, 0o700)
		if err := os.WriteFile(e.db, damaged, 0o600); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		logw := syncBuf{}
		outs := make([]bytes.Buffer, hooks)
		for i := range hooks {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ev, extra := hook.Stop, map[string]any(nil)
				if i%2 == 0 {
					ev, extra = hook.SessionStart, map[string]any{"source": "compact"}
				}
				h := e.handler()
				h.Log = slog.New(slog.NewTextHandler(&logw, nil)).With("g", i)
				h.Run(context.Background(), ev, bytes.NewReader(e.payload(string(ev), extra)), &outs[i])
			}()
		}
		wg.Wait()
		moved, err := sqlite.MovedAside(e.db)
		if err != nil {
			t.Fatal(err)
		}
		if len(moved) != 1 {
			var sizes []int64
			for _, m := range moved {
				fi, _ := os.Stat(m)
				sizes = append(sizes, fi.Size())
			}
			t.Fatalf("round %d: the damaged store was moved aside %d times (sizes %v): a fresh store went with it\n%s", round, len(moved), sizes, logw.b.String())
		}
		if got, _ := os.ReadFile(moved[0]); !bytes.Equal(got, damaged) {
			fi, _ := os.Stat(moved[0])
			t.Fatalf("round %d: the file moved aside is not the damaged store: %s %d bytes (damaged %d)\n%s", round, moved[0], fi.Size(), len(damaged), logw.b.String())
		}
		for i := range outs {
			if b := outs[i].Bytes(); len(b) > 0 && (i%2 != 0 || !json.Valid(b)) {
				t.Fatalf("round %d: hook %d wrote %q", round, i, b)
			}
		}
		st, err := sqlite.Open(context.Background(), e.db, sqlite.Options{})
		if err != nil {
			t.Fatalf("round %d: the fresh store: %v", round, err)
		}
		_, err = st.Session(context.Background(), demoID)
		st.Close()
		if err != nil {
			t.Fatalf("round %d: the session is not in the fresh store: %v\n%s", round, err, logw.b.String())
		}
	}
}

// syncBuf is a log the hooks running at once share.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// TestDamagedStoreSideFilesMovedAside damages the header of a store whose
// log and index are on disk, as a store in use has them: the hook serves
// on a fresh store, and the damaged store's log and index are moved aside
// beside it. It failed two ways: the index was deleted rather than moved,
// and opening the damaged store read-write checkpointed the log into it
// and deleted the log by name as the failed connection closed.
func TestDamagedStoreSideFilesMovedAside(t *testing.T) {
	e := newEnv(t)
	var out bytes.Buffer
	e.handler().Run(context.Background(), hook.Stop, bytes.NewReader(e.payload("Stop", nil)), &out)
	// A write left in the log: a connection that stays open keeps it there
	// and the index beside it; a copy of the three files is a store in use.
	db, err := sql.Open("sqlite", e.db)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	for _, q := range []string{"PRAGMA wal_autocheckpoint = 0", "INSERT INTO meta (key, value) VALUES ('damaged-test', 1)"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string][]byte{}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(e.db + suffix)
		if err != nil || len(b) == 0 {
			t.Fatalf("%s: %d bytes, %v", e.db+suffix, len(b), err)
		}
		files[suffix] = b
	}
	db.Close()
	copy(files[""], "not the header of a database")
	for suffix, b := range files {
		if err := os.WriteFile(e.db+suffix, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}

	var logw syncBuf
	h := e.handler()
	h.Log = slog.New(slog.NewTextHandler(&logw, nil))
	out.Reset()
	h.Run(context.Background(), hook.SessionStart, bytes.NewReader(e.payload("SessionStart", map[string]any{"source": "compact"})), &out)
	if out.Len() > 0 && !json.Valid(out.Bytes()) {
		t.Fatalf("the hook wrote %q", out.Bytes())
	}
	moved, err := sqlite.MovedAside(e.db)
	if err != nil || len(moved) != 1 {
		t.Fatalf("moved aside: %v, %v\n%s", moved, err, logw.b.String())
	}
	// The index is SQLite's cache of the log, which a reader may rebuild:
	// it is moved with the store, whatever it holds.
	if _, err := os.Lstat(moved[0] + "-shm"); err != nil {
		t.Errorf("the index was not moved with the store: %v\n%s", err, logw.b.String())
	}
	for _, suffix := range []string{"", "-wal"} {
		want := files[suffix]
		if got, err := os.ReadFile(moved[0] + suffix); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes (%v), want the damaged store's %d\n%s", moved[0]+suffix, len(got), err, len(want), logw.b.String())
		}
	}
	st, err := sqlite.Open(context.Background(), e.db, sqlite.Options{})
	if err != nil {
		t.Fatalf("the fresh store: %v\n%s", err, logw.b.String())
	}
	defer st.Close()
	if _, err := st.Check(context.Background()); err != nil {
		t.Errorf("the fresh store: %v", err)
	}
	if _, err := st.Session(context.Background(), demoID); err != nil {
		t.Errorf("the session is not in the fresh store: %v\n%s", err, logw.b.String())
	}
}
