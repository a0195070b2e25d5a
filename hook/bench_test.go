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
)

// BenchmarkSessionStartCompact runs the restore after a compaction on the
// largest real session, as the hook process does but for the process's
// start: open the store, archive nothing new, write the recall index,
// compose and record the restore, record the run. It needs the shared
// data folder beside the repository.
func BenchmarkSessionStartCompact(b *testing.B) {
	sid, path, _ := benchSession(b)
	dir := b.TempDir()
	h := &hook.Handler{Config: hook.Config{DB: filepath.Join(dir, "carryover.db"), Budget: 4000, Timeout: time.Minute}}
	payload := func(event, extra string) []byte {
		p := map[string]any{"session_id": sid, "transcript_path": path, "cwd": dir, "hook_event_name": event}
		if err := json.Unmarshal([]byte("{"+extra+"}"), &p); err != nil {
			b.Fatal(err)
		}
		data, _ := json.Marshal(p)
		return data
	}
	ctx := context.Background()
	if res := h.Run(ctx, hook.PreCompact, bytes.NewReader(payload("PreCompact", `"trigger":"auto"`)), &bytes.Buffer{}); res.Err != nil {
		b.Fatal(res.Err)
	}
	start := payload("SessionStart", `"source":"compact"`)
	for b.Loop() {
		var out bytes.Buffer
		h.Start = time.Time{}
		res := h.Run(ctx, hook.SessionStart, bytes.NewReader(start), &out)
		if res.Err != nil || out.Len() == 0 {
			b.Fatalf("SessionStart: %+v, %d bytes out", res, out.Len())
		}
	}
}

// BenchmarkPreCompactCold runs a PreCompact on the largest real session
// into a store that does not exist yet, as the first hook of a new user
// does but for the process's start: create and migrate the store, archive
// the whole transcript with its raw lines, record the run.
func BenchmarkPreCompactCold(b *testing.B) {
	sid, path, data := benchSession(b)
	b.SetBytes(int64(len(data)))
	payload, _ := json.Marshal(map[string]any{"session_id": sid, "transcript_path": path, "cwd": b.TempDir(), "hook_event_name": "PreCompact", "trigger": "auto"})
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		h := &hook.Handler{Config: hook.Config{DB: filepath.Join(b.TempDir(), "carryover.db"), Budget: 4000, Timeout: time.Minute}}
		b.StartTimer()
		if res := h.Run(ctx, hook.PreCompact, bytes.NewReader(payload), &bytes.Buffer{}); res.Err != nil {
			b.Fatal(res.Err)
		}
	}
}

// BenchmarkPreCompactIncremental runs a PreCompact that archives the last
// 50 lines of the largest real session into a store that holds the rest,
// as `bench latency` measures it but for the process's start: open the
// store, archive the new lines, write the compaction instructions, record
// the run. Each run starts from a copy of the store the others leave
// alone.
func BenchmarkPreCompactIncremental(b *testing.B) {
	sid, _, data := benchSession(b)
	lines := bytes.SplitAfter(data, []byte("\n"))
	dir := b.TempDir()
	inc := filepath.Join(dir, sid+".jsonl")
	if err := os.WriteFile(inc, bytes.Join(lines[:len(lines)-50], nil), 0o600); err != nil {
		b.Fatal(err)
	}
	payload, _ := json.Marshal(map[string]any{"session_id": sid, "transcript_path": inc, "cwd": dir, "hook_event_name": "PreCompact", "trigger": "auto"})
	base := filepath.Join(dir, "base.db")
	ctx := context.Background()
	h := &hook.Handler{Config: hook.Config{DB: base, Budget: 4000, Timeout: time.Minute}}
	if res := h.Run(ctx, hook.PreCompact, bytes.NewReader(payload), &bytes.Buffer{}); res.Err != nil {
		b.Fatal(res.Err)
	}
	stored, err := os.ReadFile(base)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(inc, data, 0o600); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		b.StopTimer()
		db := filepath.Join(b.TempDir(), "carryover.db")
		if err := os.WriteFile(db, stored, 0o600); err != nil {
			b.Fatal(err)
		}
		h := &hook.Handler{Config: hook.Config{DB: db, Budget: 4000, Timeout: time.Minute}}
		b.StartTimer()
		var out bytes.Buffer
		if res := h.Run(ctx, hook.PreCompact, bytes.NewReader(payload), &out); res.Err != nil || out.Len() == 0 {
			b.Fatalf("PreCompact: %+v, %d bytes out", res, out.Len())
		}
	}
}

// benchSession returns the largest real session of the shared data folder
// beside the repository: its id, its absolute path (as Claude Code gives
// it) and its bytes; the benchmark is skipped without the folder.
func benchSession(b *testing.B) (sid, path string, data []byte) {
	b.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "shared", "data", "transcripts", "spotter"))
	if err != nil {
		b.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	var size int64
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil && fi.Size() > size {
			path, size = f, fi.Size()
		}
	}
	if path == "" {
		b.Skipf("no shared transcripts beside the repository (%s)", dir)
	}
	if data, err = os.ReadFile(path); err != nil {
		b.Fatal(err)
	}
	return strings.TrimSuffix(filepath.Base(path), ".jsonl"), path, data
}
