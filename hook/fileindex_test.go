package hook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/ingest"
)

// TestRecallIndexFromRestore: the recall index SessionStart writes after a
// compaction from the items its restore read is the one it writes on a
// resume without an index, from the store, on the demo session and the
// real ones, each as its transcript stands when Claude Code runs the hook:
// up to the compaction's summary.
func TestRecallIndexFromRestore(t *testing.T) {
	demo, err := filepath.Abs(filepath.Join("..", "cmd", "carryover", "demodata", "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{demo}
	real, _ := filepath.Glob(filepath.Join("..", "..", "shared", "data", "transcripts", "spotter", "*.jsonl"))
	switch {
	case len(real) > 0 && !testing.Short():
		files = append(files, real...)
	case os.Getenv("CI") == "true":
		t.Fatal("no shared transcripts beside the repository (CI needs ../shared)")
	default:
		t.Log("only the demo session: no shared transcripts beside the repository, or -short")
	}
	for _, f := range files {
		dir := t.TempDir()
		// Hooks take absolute transcript paths named by their session.
		sid := demoID
		if f != demo {
			sid = ingest.SessionIDFromPath(f)
		}
		path := filepath.Join(dir, sid+".jsonl")
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		i := bytes.Index(data, []byte(`"isCompactSummary":true`))
		if i < 0 {
			t.Fatalf("%s: no compaction summary", f)
		}
		end := i + bytes.IndexByte(data[i:], '\n') + 1
		if err := os.WriteFile(path, data[:end], 0o600); err != nil {
			t.Fatal(err)
		}
		db := filepath.Join(dir, "carryover.db")
		h := &hook.Handler{Config: hook.Config{DB: db, Budget: 4000, Timeout: time.Minute}}
		run := func(source string) {
			t.Helper()
			p, _ := json.Marshal(map[string]any{"session_id": sid, "transcript_path": path, "cwd": dir,
				"hook_event_name": "SessionStart", "source": source})
			if res := h.Run(context.Background(), hook.SessionStart, bytes.NewReader(p), &bytes.Buffer{}); res.Err != nil {
				t.Fatalf("%s: SessionStart:%s: %v", sid, source, res.Err)
			}
		}
		index := func() []byte {
			t.Helper()
			ents, err := os.ReadDir(hook.RecallIndexDir(db))
			if err != nil || len(ents) != 1 {
				t.Fatalf("%s: recall index: %d files, %v", sid, len(ents), err)
			}
			data, err := os.ReadFile(filepath.Join(hook.RecallIndexDir(db), ents[0].Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(filepath.Join(hook.RecallIndexDir(db), ents[0].Name())); err != nil {
				t.Fatal(err)
			}
			return data
		}
		run("compact")
		fromRestore := index()
		run("resume")
		fromStore := index()
		var ix struct{ Files []string }
		if err := json.Unmarshal(fromStore, &ix); err != nil || len(ix.Files) == 0 {
			t.Fatalf("%s: index %s: no files (%v)", sid, fromStore, err)
		}
		if !bytes.Equal(fromRestore, fromStore) {
			t.Errorf("%s: the index from the restore's items\n%s\nwant, from the store,\n%s", sid, fromRestore, fromStore)
		}
	}
}

// TestRecallIndexPrune: SessionEnd removes the recall indexes idle for a
// month and keeps the others.
func TestRecallIndexPrune(t *testing.T) {
	e := newEnv(t)
	dir := hook.RecallIndexDir(e.db)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, strings.Repeat("ab", 16)+".json")
	fresh := filepath.Join(dir, strings.Repeat("cd", 16)+".json")
	other := filepath.Join(dir, "notes.txt") // not an index: left alone
	for _, f := range []string{old, fresh, other} {
		if err := os.WriteFile(f, []byte(`{"window":1,"files":[]}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	month := time.Now().Add(-31 * 24 * time.Hour)
	for _, f := range []string{old, other} {
		if err := os.Chtimes(f, month, month); err != nil {
			t.Fatal(err)
		}
	}
	res := e.handler().Run(context.Background(), hook.SessionEnd, bytes.NewReader(e.payload("SessionEnd", map[string]any{"reason": "exit"})), &bytes.Buffer{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("an index idle for a month is still there (%v)", err)
	}
	for _, f := range []string{fresh, other} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
		}
	}
}
