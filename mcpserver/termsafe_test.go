package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/mcpserver"
)

// TestToolTextTerminalSafe archives a tool output holding escape
// sequences (a window title, OSC 52 in its C1 form, a right-to-left
// override) and reads it back through search, get (chunks and raw lines)
// and timeline: Claude Code shows a tool's result on the user's terminal,
// so none reaches it raw, and get's raw lines stay valid JSON.
func TestToolTextTerminalSafe(t *testing.T) {
	const sid = "5afe7e57-0000-4000-8000-000000000002"
	project := filepath.Join(t.TempDir(), "proj")
	hostile := "\x1b]0;pwned\x07 \u009d52;c;cHduZWQ=\u009c \u202etxt.exe"
	var lines []string
	for i, m := range []map[string]any{
		{"type": "user", "message": map[string]any{"role": "user", "content": "Print the numbat banner " + hostile}},
		{"type": "assistant", "message": map[string]any{"role": "assistant", "id": "msg_1",
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{"command": "cat numbat.txt"}}}}},
		{"type": "user", "message": map[string]any{"role": "user", "content": []any{map[string]any{"tool_use_id": "toolu_1",
			"type": "tool_result", "content": "numbat banner " + hostile}}}},
	} {
		m["uuid"] = fmt.Sprintf("e5c00000-0000-4000-8000-%012d", i+1)
		m["sessionId"], m["cwd"], m["timestamp"] = sid, project, fmt.Sprintf("2026-01-05T10:00:%02dZ", i)
		data, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(data))
	}
	path := filepath.Join(t.TempDir(), sid+".jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st := openStore(t)
	if _, err := (&ingest.Archiver{Store: st}).File(context.Background(), path, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, st, mcpserver.Options{Project: project, SessionID: sid})
	search := mustCall(t, cs, "search", map[string]any{"query": "numbat banner"})
	ids := chunkIDs(t, search)
	if len(ids) == 0 {
		t.Fatalf("search found nothing:\n%s", search)
	}
	raw := mustCall(t, cs, "get", map[string]any{"session": sid, "from_line": 1, "to_line": 3, "raw": true})
	for name, text := range map[string]string{
		"search":   search,
		"get":      mustCall(t, cs, "get", map[string]any{"chunk_ids": ids}),
		"get raw":  raw,
		"timeline": mustCall(t, cs, "timeline", map[string]any{"session": sid}),
	} {
		if !strings.Contains(text, "numbat") {
			t.Errorf("%s lost the archived text:\n%s", name, text)
		}
		for _, c := range text {
			if c < 0x20 && c != '\n' && c != '\t' || c >= 0x7f && c < 0xa0 || c == '\u202e' {
				t.Errorf("%s holds %U raw:\n%q", name, c, text)
				break
			}
		}
	}
	n := 0
	for _, l := range strings.Split(raw, "\n") {
		if strings.HasPrefix(l, "{") {
			n++
			var v map[string]any
			if err := json.Unmarshal([]byte(l), &v); err != nil {
				t.Errorf("a raw line is no longer JSON (%v): %s", err, l)
			} else if s, _ := json.Marshal(v); !strings.Contains(string(s), "numbat") {
				t.Errorf("a raw line lost its text: %s", l)
			}
		}
	}
	if n != 3 {
		t.Errorf("%d raw lines, want 3:\n%s", n, raw)
	}
}
