package hook_test

import (
	"bytes"
	"context"
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
