package chunk_test

import (
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/chunk"
	"github.com/carryover-dev/carryover/transcript"
)

// TestQueuedPromptIsArchived checks that a prompt typed while Claude Code is
// busy is kept. Claude Code 2.1 writes it as a queue-operation enqueue; when
// it is handed to the running turn, a queue-operation remove follows and no
// user line ever repeats the text (the shape of the real spotter transcript,
// lines 497-505 and 603-604). The user typed it: a chunk must hold it.
func TestQueuedPromptIsArchived(t *testing.T) {
	const sid = "258c7280-ae70-4798-800f-63464d01a85d"
	raw := []string{
		`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"Implement spotter-gqc"},"uuid":"u1","timestamp":"2026-02-11T20:50:00.000Z","sessionId":"` + sid + `"}`,
		`{"parentUuid":"u1","isSidechain":false,"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"mix test"}}]},"uuid":"u2","timestamp":"2026-02-11T20:50:10.000Z","sessionId":"` + sid + `"}`,
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-02-11T20:51:12.726Z","sessionId":"` + sid + `","content":"check again"}`,
		`{"parentUuid":"u2","isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"65 tests, 0 failures"}]},"uuid":"u3","timestamp":"2026-02-11T20:51:15.000Z","sessionId":"` + sid + `"}`,
		`{"type":"queue-operation","operation":"remove","timestamp":"2026-02-11T20:51:19.419Z","sessionId":"` + sid + `"}`,
		`{"parentUuid":"u3","isSidechain":false,"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"Checked again: all tests pass."}]},"uuid":"u4","timestamp":"2026-02-11T20:51:30.000Z","sessionId":"` + sid + `"}`,
	}
	r := buildLines(t, sid, raw)
	for _, c := range r.Chunks {
		if strings.Contains(c.Text, "check again") || strings.Contains(c.Prompt, "check again") {
			return
		}
	}
	t.Errorf("the queued prompt %q is in no chunk", "check again")
}

// TestQueuedPromptTakenLater: a queued prompt that comes back as a user line
// of its own (dequeue) is archived once, as that line; one popped back into
// the input box, and a task notification Claude Code queues itself, are not
// archived as prompts.
func TestQueuedPromptTakenLater(t *testing.T) {
	const sid = "258c7280-ae70-4798-800f-63464d01a85d"
	raw := []string{
		`{"parentUuid":null,"type":"user","message":{"role":"user","content":"Implement the importer"},"uuid":"u1","timestamp":"2026-02-11T20:50:00.000Z","sessionId":"` + sid + `"}`,
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-02-11T20:50:05.000Z","sessionId":"` + sid + `","content":"<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n</task-notification>"}`,
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-02-11T20:50:06.000Z","sessionId":"` + sid + `","content":"also add a CSV exporter"}`,
		`{"type":"queue-operation","operation":"dequeue","timestamp":"2026-02-11T20:50:09.000Z","sessionId":"` + sid + `"}`,
		`{"parentUuid":"u1","type":"user","message":{"role":"user","content":"also add a CSV exporter"},"uuid":"u2","timestamp":"2026-02-11T20:50:10.000Z","sessionId":"` + sid + `"}`,
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-02-11T20:50:20.000Z","sessionId":"` + sid + `","content":"never mind the colours"}`,
		`{"type":"queue-operation","operation":"popAll","timestamp":"2026-02-11T20:50:21.000Z","sessionId":"` + sid + `"}`,
		`{"type":"queue-operation","operation":"remove","timestamp":"2026-02-11T20:50:22.000Z","sessionId":"` + sid + `"}`,
	}
	r := buildLines(t, sid, raw)
	var all strings.Builder
	for _, c := range r.Chunks {
		all.WriteString(c.Text + "\n")
	}
	text := all.String()
	if n := strings.Count(text, "also add a CSV exporter"); n != 1 {
		t.Errorf("the dequeued prompt is in the chunks %d times, want once:\n%s", n, text)
	}
	for _, not := range []string{"never mind the colours", "task-id", "while Claude worked"} {
		if strings.Contains(text, not) {
			t.Errorf("chunks hold %q:\n%s", not, text)
		}
	}
	if len(r.Cursor.Queued) != 0 {
		t.Errorf("queue left in the cursor: %q", r.Cursor.Queued)
	}
}

// buildLines decodes transcript lines, numbered from 1, and builds them.
func buildLines(t *testing.T, sid string, raw []string) chunk.Result {
	t.Helper()
	var es []transcript.Entry
	for i, l := range raw {
		e, err := transcript.Decode([]byte(l))
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		e.Line = i + 1
		es = append(es, e)
	}
	return chunk.Build(sid, "/p", es, chunk.NewCursor(), chunk.Options{})
}
