package statusline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/redact"
	"github.com/carryover-dev/carryover/sqlite"
	"github.com/carryover-dev/carryover/statusline"
)

func TestCrossing(t *testing.T) {
	cases := []struct {
		name      string
		remaining []float64
		fires     []int // the threshold acted on at each step, 0 for none
	}{
		{"each once", []float64{80, 40, 30, 29.5, 20, 15, 14, 6, 5, 4, 0},
			[]int{0, 0, 30, 0, 0, 15, 0, 0, 5, 0, 0}},
		{"a jump acts once, on the lowest", []float64{50, 10, 9, 4},
			[]int{0, 15, 0, 5}},
		{"noise near a threshold", []float64{31, 30, 31, 30, 33, 29},
			[]int{0, 30, 0, 0, 0, 0}},
		{"a compaction rearms", []float64{29, 14, 85, 29, 14, 4},
			[]int{30, 15, 0, 30, 15, 5}},
		{"a small rise does not", []float64{14, 20, 14, 4},
			[]int{15, 0, 0, 5}},
	}
	for _, c := range cases {
		fired := 0
		var got []int
		for _, r := range c.remaining {
			var fire int
			fire, fired = statusline.Crossing(fired, r)
			got = append(got, fire)
		}
		if !slices.Equal(got, c.fires) {
			t.Errorf("%s: remaining %v fired %v, want %v", c.name, c.remaining, got, c.fires)
		}
	}
}

const sid = "11111111-2222-3333-4444-555555555555"

// TestArchiveAtThreshold: the capture at a threshold archives through the
// hooks' recipe: the user's own redaction patterns mask what they name,
// and a transcript path Claude Code would not send is refused.
func TestArchiveAtThreshold(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "store.db")
	transcript := filepath.Join(dir, sid+".jsonl")
	line, _ := json.Marshal(map[string]any{"type": "user", "sessionId": sid, "uuid": "u1", "cwd": dir,
		"timestamp": "2026-11-20T10:00:00Z",
		"message":   map[string]any{"role": "user", "content": "deploy with the house token HOUSETOKEN-77421 to the staging box"}})
	if err := os.WriteFile(transcript, append(line, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	red := redact.New(redact.Options{Extra: []redact.Pattern{{Kind: "house", Re: regexp.MustCompile(`HOUSETOKEN-[0-9]+`)}}})
	l := &statusline.Line{
		Load: func(string) (statusline.Config, error) {
			return statusline.Config{DB: db, Timeout: 5 * time.Second, Redactor: red, StateDir: filepath.Join(dir, "state")}, nil
		},
	}
	payload := func(path string, remaining float64) []byte {
		p, _ := json.Marshal(map[string]any{"session_id": sid, "transcript_path": path, "cwd": dir,
			"context_window": map[string]any{"remaining_percentage": remaining}})
		return p
	}
	ctx := context.Background()

	// A relative path is refused: nothing is archived.
	if got := l.Render(ctx, payload(sid+".jsonl", 29), ""); !strings.Contains(got, "not archived yet") {
		t.Errorf("relative transcript path: line %q", got)
	}
	if _, err := os.Stat(db); err == nil {
		st, err := sqlite.Open(ctx, db, sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Session(ctx, sid); err == nil {
			t.Error("a relative transcript path was archived")
		}
		st.Close()
	}

	got := l.Render(ctx, payload(transcript, 14), "")
	if !strings.Contains(got, "archived at 15% left") || !strings.Contains(got, "1 turn archived") {
		t.Fatalf("line at the threshold: %q", got)
	}
	st, err := sqlite.Open(ctx, db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	chunks, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: sid, Turn: -1})
	if err != nil || len(chunks) == 0 {
		t.Fatalf("chunks: %v, %v", chunks, err)
	}
	for _, c := range chunks {
		if strings.Contains(c.Text+c.Prompt+c.Summary, "HOUSETOKEN-77421") {
			t.Errorf("the user's pattern was not applied: %q", c.Text)
		}
		if !strings.Contains(c.Text+c.Prompt, "[REDACTED:house]") {
			t.Errorf("no mask of the user's kind in %q", c.Text)
		}
	}
}

// TestTriggerEscaped: a compaction's trigger comes from the transcript
// (or an imported archive) and is printed on Claude Code's terminal: an
// escape sequence in it is shown escaped, never raw.
func TestTriggerEscaped(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "store.db")
	transcript := filepath.Join(dir, sid+".jsonl")
	var lines []byte
	for i, m := range []map[string]any{
		{"type": "user", "message": map[string]any{"role": "user", "content": "build the banner"}},
		{"type": "system", "subtype": "compact_boundary", "compactMetadata": map[string]any{"trigger": "auto\x1b]0;pwned\x07", "preTokens": 1000}},
		{"type": "user", "isCompactSummary": true, "message": map[string]any{"role": "user", "content": "Summary: the banner."}},
		{"type": "user", "message": map[string]any{"role": "user", "content": "go on"}},
	} {
		m["sessionId"], m["uuid"], m["cwd"] = sid, fmt.Sprintf("u%d", i), dir
		m["timestamp"] = fmt.Sprintf("2026-11-20T10:00:%02dZ", i)
		line, _ := json.Marshal(m)
		lines = append(append(lines, line...), '\n')
	}
	if err := os.WriteFile(transcript, lines, 0o600); err != nil {
		t.Fatal(err)
	}
	l := &statusline.Line{
		Load: func(string) (statusline.Config, error) {
			return statusline.Config{DB: db, Timeout: 5 * time.Second, StateDir: filepath.Join(dir, "state")}, nil
		},
	}
	p, _ := json.Marshal(map[string]any{"session_id": sid, "transcript_path": transcript, "cwd": dir,
		"context_window": map[string]any{"remaining_percentage": 14}})
	got := l.Render(context.Background(), p, "")
	if !strings.Contains(got, "compacted") {
		t.Fatalf("no compaction in the line: %q", got)
	}
	if strings.ContainsAny(got, "\x1b\x07") {
		t.Errorf("the trigger's escape reached the line raw: %q", got)
	}
}

// TestStateBounded: a state file that has become a link to an endless
// device (/dev/zero) is not read; the line still comes, as from a
// session without a state.
func TestStateBounded(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(state, sid+".json")); err != nil {
		t.Skipf("no symbolic link: %v", err)
	}
	l := &statusline.Line{
		Load: func(string) (statusline.Config, error) {
			return statusline.Config{DB: filepath.Join(dir, "store.db"), Timeout: 5 * time.Second, StateDir: state}, nil
		},
	}
	p, _ := json.Marshal(map[string]any{"session_id": sid, "cwd": dir, "context_window": map[string]any{"remaining_percentage": 80}})
	if got := l.Render(context.Background(), p, ""); !strings.Contains(got, "ctx 20% used") {
		t.Errorf("line %q", got)
	}
}
