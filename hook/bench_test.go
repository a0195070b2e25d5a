package hook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
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
	const sid = "fa812bfe-b295-4cca-9c2f-fdf01028cb46"
	// Absolute, as Claude Code gives it.
	path, err := filepath.Abs(filepath.Join("..", "..", "shared", "data", "transcripts", "spotter", sid+".jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		b.Skipf("no shared transcripts beside the repository: %v", err)
	}
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
	const sid = "fa812bfe-b295-4cca-9c2f-fdf01028cb46"
	path, err := filepath.Abs(filepath.Join("..", "..", "shared", "data", "transcripts", "spotter", sid+".jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Skipf("no shared transcripts beside the repository: %v", err)
	}
	b.SetBytes(fi.Size())
	data, _ := json.Marshal(map[string]any{"session_id": sid, "transcript_path": path, "cwd": b.TempDir(), "hook_event_name": "PreCompact", "trigger": "auto"})
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		h := &hook.Handler{Config: hook.Config{DB: filepath.Join(b.TempDir(), "carryover.db"), Budget: 4000, Timeout: time.Minute}}
		b.StartTimer()
		if res := h.Run(ctx, hook.PreCompact, bytes.NewReader(data), &bytes.Buffer{}); res.Err != nil {
			b.Fatal(res.Err)
		}
	}
}
