package ingest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
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

// TestSecretsAcrossRuns: secrets in lines that change between two ingest
// runs are stored nowhere — a last line torn inside a token (in a tool
// result and in a progress line no entry reads) and finished by the next
// run, a transcript rewritten shorter with a secret in the new lines, and
// a subagent's description.
func TestSecretsAcrossRuns(t *testing.T) {
	ctx := context.Background()
	aws, gh := "AKIAQ7ZXQ7ZXQ7ZXQ7ZX", "ghp_"+strings.Repeat("Zx9Qw", 7)+"A"
	line := func(v map[string]any) string {
		v["sessionId"], v["cwd"], v["timestamp"], v["uuid"] = sid, "/home/dev/proj", "2026-11-20T10:01:00Z", "e"
		b, _ := json.Marshal(v)
		return string(b)
	}
	result := line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": "tu_0", "content": "pushed with " + gh + " ok"}}}})
	progress := line(map[string]any{"type": "progress", "data": map[string]any{"type": "bash_progress", "output": "env\n" + aws + "\n"}})
	stored := func(st carryover.Store) string {
		var all []string
		s, err := st.Session(ctx, sid)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, s.Title)
		for _, c := range chunks(t, st) {
			all = append(all, c.Text, c.Summary, c.Prompt)
			all = append(all, c.Commands...)
		}
		for _, l := range rawLines(t, st) {
			all = append(all, string(l.Text))
		}
		return strings.Join(all, "\n")
	}
	for _, torn := range []struct{ line, secret string }{{result, gh}, {progress, aws}} {
		path := filepath.Join(t.TempDir(), sid+".jsonl")
		st := openStore(t)
		cut := strings.Index(torn.line, torn.secret) + 8
		writeLines(t, path, synth(1), 0)
		appendText(t, path, torn.line[:cut])
		if _, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{}); err != nil {
			t.Fatal(err)
		}
		appendText(t, path, torn.line[cut:]+"\n")
		if _, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{}); err != nil {
			t.Fatal(err)
		}
		all := stored(st)
		if strings.Contains(all, torn.secret) || strings.Contains(all, torn.secret[:8]) {
			t.Errorf("torn line finished by the next run: part of %s stored", torn.secret[:4])
		}
		if len(rawLines(t, st)) != 5 {
			t.Errorf("%d raw lines, want 5", len(rawLines(t, st)))
		}
	}

	path := filepath.Join(t.TempDir(), sid+".jsonl")
	st := openStore(t)
	writeLines(t, path, synth(5), 0)
	if _, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	writeLines(t, path, append(synth(1), progress, result), 0)
	if rep, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{}); err != nil || !rep.Restarted {
		t.Fatalf("rewrite: %+v, %v", rep, err)
	}
	if all := stored(st); strings.Contains(all, aws) || strings.Contains(all, gh) {
		t.Error("a secret of the rewritten transcript stored")
	}

	dir := filepath.Join(t.TempDir(), sid, "subagents")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	agent := filepath.Join(dir, "agent-a1b2c3.jsonl")
	if err := os.WriteFile(filepath.Join(dir, "agent-a1b2c3.meta.json"), []byte(`{"description":"push with\n`+gh+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	writeLines(t, agent, synth(1), 0)
	rep, err := (&ingest.Archiver{Store: st}).File(ctx, agent, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := st.Session(ctx, rep.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(s.Title, gh) || !strings.Contains(s.Title, "[REDACTED:github-pat]") {
		t.Errorf("subagent title %q", s.Title)
	}
}

func appendText(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}
