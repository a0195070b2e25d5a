package ingest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/redact"
)

// TestRawSecretBehindEscape: a secret in a field no entry reads (a
// progress line's output, a field Claude Code adds, a web search result)
// that only the decoded string shows, the line's text hiding it behind a
// JSON escape, is masked in the raw archive. The raw lines were masked
// only where a secret showed in their text: a user pattern for a line's
// start meets "\n" there, one that spans a quote meets "\"".
func TestRawSecretBehindEscape(t *testing.T) {
	red := redact.New(redact.Options{Extra: []redact.Pattern{
		{Kind: "acme", Re: regexp.MustCompile(`(?m)^acme: (\S+)`)},
		{Kind: "quoted", Re: regexp.MustCompile(`ticket="(\w+)"`)},
	}})
	values := []string{"Zq8xW3rT5yU7progress", "Zq8xW3rT5yU7field", "Zq8xW3rT5yU7search"}
	line := func(v map[string]any) string {
		v["sessionId"], v["cwd"], v["timestamp"], v["uuid"] = sid, "/home/dev/proj", "2026-11-20T10:01:00Z", "e"
		b, _ := json.Marshal(v)
		return string(b)
	}
	lines := append(synth(1),
		line(map[string]any{"type": "progress", "data": map[string]any{"type": "bash_progress", "output": "deploying\nacme: " + values[0]}}),
		line(map[string]any{"type": "user", "newField": `config: ticket="` + values[1] + `"`, "message": map[string]any{"role": "user", "content": "go on"}}),
		line(map[string]any{"type": "assistant", "message": map[string]any{"id": "msg_s", "role": "assistant", "content": []any{
			map[string]any{"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []any{
				map[string]any{"type": "web_search_result", "title": "Leaked keys", "page_age": "paste\nacme: " + values[2]}}}}}}),
	)
	path := filepath.Join(t.TempDir(), sid+".jsonl")
	writeLines(t, path, lines, 0)
	st := openStore(t)
	rep, err := (&ingest.Archiver{Store: st, Redactor: red}).File(context.Background(), path, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	raw := rawLines(t, st)
	if len(raw) != len(lines) {
		t.Fatalf("%d raw lines, want %d", len(raw), len(lines))
	}
	for i, l := range raw[len(raw)-3:] {
		if bytes.Contains(l.Text, []byte(values[i])) {
			t.Errorf("raw line %d holds a secret: %s", l.Line, l.Text)
		}
		if !json.Valid(l.Text) || !bytes.Contains(l.Text, []byte("[REDACTED:")) {
			t.Errorf("raw line %d is not masked JSON: %s", l.Line, l.Text)
		}
	}
	if rep.Redactions["acme"] != 2 || rep.Redactions["quoted"] != 1 {
		t.Errorf("redactions %v: want acme 2 and quoted 1", rep.Redactions)
	}
}
