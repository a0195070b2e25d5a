package hook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/ingest"
)

var updateRestore = flag.Bool("update-restore", false, "rewrite testdata/restore")

// TestRestoreGolden runs SessionStart(compact) on every compaction of the
// real sessions, as each transcript stands when Claude Code runs the hook,
// at four budgets, and compares the block with testdata/restore: a change
// meant only to make the restore faster must leave every block as it was,
// and one meant to change it shows here what it changed.
func TestRestoreGolden(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "shared", "data", "transcripts", "spotter", "*.jsonl"))
	switch {
	case len(files) > 0 && !testing.Short():
	case os.Getenv("CI") == "true":
		t.Fatal("no shared transcripts beside the repository (CI needs ../shared)")
	default:
		t.Skip("no shared transcripts beside the repository, or -short")
	}
	for _, f := range files {
		sid := ingest.SessionIDFromPath(f)
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cwd := sessionCwd(t, data)
		cut := 0
		for off := 0; ; {
			i := bytes.Index(data[off:], []byte(`"isCompactSummary":true`))
			if i < 0 {
				break
			}
			end := off + i + bytes.IndexByte(data[off+i:], '\n') + 1
			off = end
			cut++
			for _, budget := range []int{1000, 2000, 4000, 8000} {
				name := fmt.Sprintf("%s-%d-%d.golden", sid[:8], cut, budget)
				got := restoreAt(t, sid, cwd, data[:end], budget)
				golden := filepath.Join("testdata", "restore", name)
				if *updateRestore {
					if err := os.WriteFile(golden, []byte(got), 0o600); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run with -update-restore)", err)
				}
				if got != string(want) {
					t.Errorf("%s: the restore differs from the golden file:\n%s", name, got)
				}
			}
		}
	}
}

// sessionCwd is the first working directory the transcript names.
func sessionCwd(t *testing.T, transcript []byte) string {
	t.Helper()
	for line := range bytes.Lines(transcript) {
		var v struct{ Cwd string }
		if json.Unmarshal(line, &v) == nil && v.Cwd != "" {
			return v.Cwd
		}
	}
	t.Fatal("no working directory in the transcript")
	return ""
}

// restoreAt archives the transcript and returns the block SessionStart
// (compact) injects in the session's working directory.
func restoreAt(t *testing.T, sid, cwd string, transcript []byte, budget int) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, sid+".jsonl")
	if err := os.WriteFile(path, transcript, 0o600); err != nil {
		t.Fatal(err)
	}
	h := &hook.Handler{Config: hook.Config{DB: filepath.Join(dir, "carryover.db"), Budget: budget, Timeout: time.Minute}}
	p, _ := json.Marshal(map[string]any{"session_id": sid, "transcript_path": path, "cwd": cwd,
		"hook_event_name": "SessionStart", "source": "compact"})
	var out bytes.Buffer
	if res := h.Run(context.Background(), hook.SessionStart, bytes.NewReader(p), &out); res.Err != nil {
		t.Fatalf("%s: SessionStart(compact): %v", sid, res.Err)
	}
	var o struct {
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out.Bytes(), &o); err != nil {
		t.Fatalf("%s: output %q: %v", sid, out.String(), err)
	}
	return o.HookSpecificOutput.AdditionalContext
}
