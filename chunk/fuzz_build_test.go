package chunk_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/carryover-dev/carryover/chunk"
	"github.com/carryover-dev/carryover/transcript"
)

// FuzzBuild chunks a session whose every text is the fuzzer's: a prompt,
// the assistant's words, a Bash call and its output (failed or not), an
// edit, a todo list, the user's answer, and a compaction with its summary,
// built in one batch and in two split at a fuzzed entry. Build must not
// panic, every Result must hold checkInvariants, and texts that are valid
// UTF-8 give valid items.
func FuzzBuild(f *testing.F) {
	f.Add("We decided the port is 48213; never use cgo.", "I'll run the tests.", "go test ./... -run TestA", "FAIL TestA: want 3, got 4\nexit status 1",
		true, "internal/a.go", "x := 1", "x := 2", "Fix TestA", "yes, go ahead", "Summary: port 48213", 3, 400)
	f.Add("", "", "", "", false, "", "", "", "", "", "", 0, 200)
	f.Add("信息：我们决定用端口 8080。", "好的", "bash -c 'make \"all\"'", "\x00\xff", true, `C:\src\a.go`, "{", "}", "[x] done", "不", "摘要", 7, 1600)
	f.Fuzz(func(t *testing.T, prompt, said, command, output string, failed bool, file, old, new, todo, answer, summary string, split, maxChars int) {
		if maxChars < 1 || maxChars > 5000 {
			t.Skip()
		}
		msg := func(role string, content any) map[string]any {
			return map[string]any{"type": role, "message": map[string]any{"role": role, "content": content}}
		}
		use := func(id, name string, input any) map[string]any {
			m := msg("assistant", []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}})
			m["message"].(map[string]any)["id"] = "m" + id
			return m
		}
		result := func(id, out string, isErr bool) map[string]any {
			return msg("user", []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": out, "is_error": isErr}})
		}
		objs := []map[string]any{
			msg("user", prompt),
			msg("assistant", []any{map[string]any{"type": "text", "text": said}}),
			use("t1", "Bash", map[string]any{"command": command, "description": said}),
			result("t1", output, failed),
			use("t2", "Edit", map[string]any{"file_path": file, "old_string": old, "new_string": new}),
			result("t2", "The file "+file+" has been updated.", false),
			use("t3", "TodoWrite", map[string]any{"todos": []any{map[string]any{"content": todo, "status": "in_progress", "activeForm": todo}}}),
			result("t3", "ok", false),
			msg("user", answer),
			{"type": "system", "subtype": "compact_boundary", "compactMetadata": map[string]any{"trigger": "auto", "preTokens": 1000}},
			{"type": "user", "isCompactSummary": true, "message": map[string]any{"role": "user", "content": summary}},
			msg("user", answer+" "+prompt),
		}
		var es []transcript.Entry
		for i, o := range objs {
			o["uuid"] = fmt.Sprintf("u%d", i)
			o["timestamp"] = fmt.Sprintf("2026-01-01T00:00:%02dZ", i)
			raw, err := json.Marshal(o)
			if err != nil {
				t.Fatal(err)
			}
			e, err := transcript.Decode(raw)
			if err != nil {
				t.Fatalf("line %d does not decode: %v", i+1, err)
			}
			e.Line = i + 1
			es = append(es, e)
		}
		opt := chunk.Options{MaxChars: max(maxChars, 200), TargetChars: max(maxChars, 200) / 2}
		whole := chunk.Build("s", "/p", es, chunk.NewCursor(), opt)
		checkInvariants(t, whole, opt)
		valid := true
		for _, s := range []string{prompt, said, command, output, file, old, new, todo, answer, summary} {
			valid = valid && utf8.ValidString(s)
		}
		for _, it := range whole.Items {
			if valid && (!utf8.ValidString(it.Text) || !utf8.ValidString(it.Detail)) {
				t.Fatalf("item %s not valid UTF-8: %q / %q", it.Kind, it.Text, it.Detail)
			}
		}
		k := min(max(split, 0), len(es))
		first := chunk.Build("s", "/p", es[:k], chunk.NewCursor(), opt)
		checkInvariants(t, first, opt)
		second := chunk.Build("s", "/p", es[k:], first.Cursor, opt)
		checkInvariants(t, second, opt)
	})
}
