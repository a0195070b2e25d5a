package chunk_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/chunk"
	"github.com/carryover-dev/carryover/transcript"
)

// lines builds a transcript from compact line specs, decoded by the real
// decoder: "user:TEXT", "asst:ID:TEXT", "tool:ID:TOOLID:NAME:INPUT-JSON",
// "ok:TOOLID:OUTPUT", "err:TOOLID:OUTPUT".
func lines(t *testing.T, specs ...string) []transcript.Entry {
	t.Helper()
	var es []transcript.Entry
	for i, spec := range specs {
		kind, rest, _ := strings.Cut(spec, ":")
		var obj map[string]any
		switch kind {
		case "user":
			obj = map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": rest}}
		case "asst":
			id, text, _ := strings.Cut(rest, ":")
			obj = map[string]any{"type": "assistant", "message": map[string]any{"id": id, "role": "assistant",
				"content": []any{map[string]any{"type": "text", "text": text}}}}
		case "tool":
			f := strings.SplitN(rest, ":", 4)
			obj = map[string]any{"type": "assistant", "message": map[string]any{"id": f[0], "role": "assistant",
				"content": []any{map[string]any{"type": "tool_use", "id": f[1], "name": f[2], "input": json.RawMessage(f[3])}}}}
		case "ok", "err":
			id, out, _ := strings.Cut(rest, ":")
			obj = map[string]any{"type": "user", "message": map[string]any{"role": "user",
				"content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": out, "is_error": kind == "err"}}}}
		default:
			t.Fatalf("bad spec %q", spec)
		}
		obj["uuid"] = fmt.Sprintf("u%d", i)
		obj["timestamp"] = fmt.Sprintf("2026-01-01T00:00:%02dZ", i%60)
		raw, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		e, err := transcript.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		e.Line = i + 1
		es = append(es, e)
	}
	return es
}

func itemsOf(r chunk.Result, kind carryover.ItemKind) []carryover.Item {
	var out []carryover.Item
	for _, it := range r.Items {
		if it.Kind == kind {
			out = append(out, it)
		}
	}
	return out
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name  string
		specs []string
		kind  carryover.ItemKind
		want  []string // item texts
		check func(t *testing.T, its []carryover.Item)
	}{
		{name: "goal", specs: []string{"user:Fix the login bug please"}, kind: carryover.KindGoal,
			want: []string{"Fix the login bug please"}},
		{name: "slash command goal", specs: []string{"user:<command-name>/review</command-name><command-args>pr 12</command-args>"},
			kind: carryover.KindGoal, want: []string{"/review pr 12"}},
		{name: "local commands are no goal", kind: carryover.KindGoal, specs: []string{
			"user:<command-name>/compact</command-name><command-args></command-args>",
			"user:<local-command-stdout>Compacted</local-command-stdout>",
			"user:<local-command-caveat>Caveat: do not respond</local-command-caveat>",
			"user:[Request interrupted by user for tool use]",
			"user:<task-notification><summary>done</summary></task-notification>"}},
		{name: "constraint", specs: []string{"user:Add caching. Don't touch the schema! Always run make lint. It should be fast."},
			kind: carryover.KindConstraint, want: []string{"Don't touch the schema!", "Always run make lint."}},
		{name: "constraint from a rejected call", kind: carryover.KindConstraint, specs: []string{
			`tool:m1:t1:Bash:{"command":"rm -rf build"}`,
			"err:t1:The user doesn't want to proceed with this tool use. The tool use was rejected. The user provided the following reason for the rejection: never delete build outputs"},
			want: []string{"never delete build outputs"}},
		{name: "questions and table rows are no constraints", kind: carryover.KindConstraint, specs: []string{
			"user:Should we always run the linter first? I saw we never report BadZipFile; wouldn't a warning be better? " +
				"| never | always | must |. Don't push yet."},
			want: []string{"Don't push yet."}},
		{name: "a pasted document's rules are not the user's", kind: carryover.KindConstraint, specs: []string{
			"user:Does this doc page help? " + strings.Repeat("Tools are Python packages that provide command-line interfaces. ", 8) +
				"It is strongly recommended never to mutate a tool environment manually. " +
				strings.Repeat("Tools may be installed with uv tool install. ", 6) + "Please never edit the lockfile by hand."},
			want: []string{"Please never edit the lockfile by hand."}},
		{name: "a rejected call with the user's words is a request, not an error", kind: carryover.KindGoal, specs: []string{
			`tool:m1:t1:Edit:{"file_path":"/p/a.js","old_string":"a","new_string":"b"}`,
			"err:t1:please add transformer.js too first",
			`tool:m2:t2:Bash:{"command":"make deploy"}`,
			"err:t2:The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, " +
				"the new_string was NOT written to the file). To tell you how to proceed, the user said:\nuse port 48213 instead",
			`tool:m3:t3:Bash:{"command":"rm -rf x"}`,
			"err:t3:The user doesn't want to proceed with this tool use. The tool use was rejected. STOP what you are doing.",
			`tool:m4:t4:Write:{"file_path":"/p/b.js","content":"x"}`, "err:t4:no"},
			want: []string{"please add transformer.js too first", "use port 48213 instead", "no"}},
		{name: "no error from a rejection, Claude Code's refusals or an empty failure", kind: carryover.KindError, specs: []string{
			`tool:m1:t1:Edit:{"file_path":"/p/a.js","old_string":"a","new_string":"b"}`, "err:t1:please add transformer.js too first",
			`tool:m2:t2:Write:{"file_path":"/p/b.js","content":"x"}`,
			"err:t2:<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>",
			`tool:m3:t3:Edit:{"file_path":"/p/c.js","old_string":"a","new_string":"b"}`,
			"err:t3:Found 3 matches of the string to replace, but replace_all is false.",
			`tool:m4:t4:Bash:{"command":"git push"}`, "err:t4:Exit code 128\n",
			`tool:m5:t5:Read:{"file_path":"/p/dir"}`, "err:t5:EISDIR: illegal operation on a directory, read",
			`tool:m6:t6:WebFetch:{"url":"https://x.test/a"}`, "err:t6:Request failed with status code 404",
			`tool:m7:t7:Write:{"file_path":"/p/b.js","content":"x"}`, "err:t7:no"},
			want: []string{"EISDIR: illegal operation on a directory, read", "Request failed with status code 404"}},
		{name: "diagnoses and lead-ins are no decisions", kind: carryover.KindDecision, specs: []string{
			"asst:m1:The issue is that we fall back to the template instead of the function. " +
				"I'll recommend the most common approach but include alternatives:\n**Use rewrites instead of serving from public/** - proxy it. " +
				"Fixed the ignore file (it had one entry instead of two). We should use rows rather than pages here."},
			want: []string{"We should use rows rather than pages here."}},
		{name: "decision", specs: []string{"asst:m1:Let me look. I'll use SQLite rather than Postgres because it is embedded. Done."},
			kind: carryover.KindDecision, want: []string{"I'll use SQLite rather than Postgres because it is embedded."}},
		{name: "no decision in plain text", specs: []string{"asst:m1:Now the tests pass."}, kind: carryover.KindDecision},
		{name: "a recommendation is a decision", specs: []string{"asst:m1:Both work. I'd recommend NATS because it is one static binary. See the recommendations below."},
			kind: carryover.KindDecision, want: []string{"I'd recommend NATS because it is one static binary."}},
		{name: "marker", specs: []string{"asst:m1:Done.\nIMPORTANT: migrations must run first", "user:REMEMBER: ship on friday"},
			kind: carryover.KindMarker, want: []string{"IMPORTANT: migrations must run first", "REMEMBER: ship on friday"},
			check: func(t *testing.T, its []carryover.Item) {
				if its[0].Weight != 1.5 || its[1].Weight != 1.0 {
					t.Errorf("marker weights %v, %v; want 1.5 (IMPORTANT boost), 1.0", its[0].Weight, its[1].Weight)
				}
			}},
		{name: "command", kind: carryover.KindCommand, specs: []string{
			`tool:m1:t1:Bash:{"command":"go build ./...","description":"Build"}`, "ok:t1:",
			`tool:m2:t2:Bash:{"command":"ls -la"}`, "ok:t2:a b c",
			`tool:m3:t3:Bash:{"command":"git status"}`, "ok:t3:clean",
			`tool:m4:t4:Bash:{"command":"make deploy"}`, "err:t4:Exit code 2\nmake: *** No rule to make target 'deploy'."},
			want: []string{"go build ./...", "git status"},
			check: func(t *testing.T, its []carryover.Item) {
				if its[0].Weight != 0.5 || its[1].Weight != 0.3 {
					t.Errorf("command weights %v, %v; want 0.5, 0.3 (read-only)", its[0].Weight, its[1].Weight)
				}
			}},
		{name: "error resolved by rerun", kind: carryover.KindError, specs: []string{
			"user:make it build",
			`tool:m1:t1:Bash:{"command":"go build ./... 2>&1"}`, "err:t1:Exit code 1\n# pkg\n./a.go:3:2: undefined: foo",
			`tool:m2:t2:Edit:{"file_path":"a.go","old_string":"foo","new_string":"bar"}`, "ok:t2:updated",
			`tool:m3:t3:Bash:{"command":"go build ./..."}`, "ok:t3:"},
			want: []string{"exit 1: ./a.go:3:2: undefined: foo"},
			check: func(t *testing.T, its []carryover.Item) {
				if !its[0].Resolved || its[0].Weight != 0.8 || !strings.Contains(its[0].Detail, `fixed by: a.go: "foo" → "bar"`) {
					t.Errorf("error not resolved: %+v", its[0])
				}
			}},
		{name: "fix", kind: carryover.KindFix, specs: []string{
			"user:make it build",
			`tool:m1:t1:Bash:{"command":"go build ./... 2>&1"}`, "err:t1:Exit code 1\n./a.go:3:2: undefined: foo",
			`tool:m2:t2:Edit:{"file_path":"a.go","old_string":"foo","new_string":"bar"}`, "ok:t2:updated",
			`tool:m3:t3:Bash:{"command":"go build ./..."}`, "ok:t3:"},
			// The edit between the failure and the passing re-run is the fix.
			want: []string{`a.go: "foo" → "bar"`},
			check: func(t *testing.T, its []carryover.Item) {
				if want := "exit 1: ./a.go:3:2: undefined: foo (then `go build ./...` passed)"; its[0].Detail != want {
					t.Errorf("fix detail %q, want %q", its[0].Detail, want)
				}
			}},
		{name: "fix by rerun alone", kind: carryover.KindFix, specs: []string{
			"user:push it",
			`tool:m1:t1:Bash:{"command":"git push"}`, "err:t1:Exit code 128\nfatal: The current branch x has no upstream branch.",
			`tool:m2:t2:Bash:{"command":"git push --set-upstream origin x"}`, "ok:t2:"},
			want: []string{"git push --set-upstream origin x"}},
		{name: "error unresolved across turns", kind: carryover.KindError, specs: []string{
			"user:first",
			`tool:m1:t1:Bash:{"command":"npm test"}`, "err:t1:Exit code 1\nError: cannot find module x",
			"user:second",
			`tool:m2:t2:Bash:{"command":"npm test"}`, "ok:t2:passed"},
			want: []string{"exit 1: Error: cannot find module x"},
			check: func(t *testing.T, its []carryover.Item) {
				if its[0].Resolved || its[0].Weight != 1.0 {
					t.Errorf("error of an earlier turn resolved: %+v", its[0])
				}
			}},
		{name: "file edit with purpose", kind: carryover.KindFileEdit, specs: []string{
			"user:Rename the handler",
			`tool:m1:t1:Write:{"file_path":"/p/x.go","content":"package x"}`, "ok:t1:File created",
			`tool:m2:t2:Read:{"file_path":"/p/y.go"}`, "ok:t2:package y"},
			want: []string{"x.go"},
			check: func(t *testing.T, its []carryover.Item) {
				if its[0].Detail != "Rename the handler" {
					t.Errorf("purpose %q", its[0].Detail)
				}
			}},
		{name: "todo", kind: carryover.KindTodo, specs: []string{
			`tool:m1:t1:TodoWrite:{"todos":[{"content":"a","status":"completed"},{"content":"b","status":"pending"}]}`, "ok:t1:ok",
			`tool:m2:t2:TaskCreate:{"subject":"c","description":"d"}`, "ok:t2:Task #7 created successfully: c",
			`tool:m3:t3:TaskUpdate:{"taskId":"7","status":"in_progress"}`, "ok:t3:Updated task #7 status"},
			want: []string{"[x] a\n[ ] b", "[ ] #7 c", "[>] #7 c"},
			check: func(t *testing.T, its []carryover.Item) {
				for _, it := range its {
					if it.Key != its[0].Key {
						t.Errorf("todo keys differ: %q %q", it.Key, its[0].Key)
					}
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := chunk.Build("s", "/p", lines(t, tt.specs...), chunk.NewCursor(), chunk.Options{})
			its := itemsOf(r, tt.kind)
			var got []string
			for _, it := range its {
				got = append(got, it.Text)
				if it.Key != chunk.Key(it.Kind, it.Text) {
					t.Errorf("key %q is not Key(kind, text)", it.Key)
				}
				if it.ChunkSeq < 0 || it.ChunkSeq >= len(r.Chunks) || r.Chunks[it.ChunkSeq].FirstLine > it.Line || r.Chunks[it.ChunkSeq].LastLine < it.Line {
					t.Errorf("item %q at line %d points to chunk %d", it.Text, it.Line, it.ChunkSeq)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("%s items %q, want %q", tt.kind, got, tt.want)
			}
			if tt.check != nil {
				tt.check(t, its)
			}
		})
	}
}

func TestKey(t *testing.T) {
	same := []struct {
		kind carryover.ItemKind
		a, b string
	}{
		{carryover.KindConstraint, "Never edit the ﬁle", "never  edit the\tfile"},
		{carryover.KindDecision, "Use ＳＱＬｉｔｅ", "use sqlite"},
		{carryover.KindCommand, "go  test ./...", "go test ./... 2>&1"},
		{carryover.KindFileEdit, "cmd/../cmd/main.go", "cmd/main.go"},
		{carryover.KindError, "main.go:12:3: undefined: x at 0x4f3a10", "main.go:40:7: undefined: x at 0xc000123"},
		{carryover.KindTodo, "[ ] a", "[x] b"},
	}
	for _, s := range same {
		if ka, kb := chunk.Key(s.kind, s.a), chunk.Key(s.kind, s.b); ka != kb {
			t.Errorf("Key(%s): %q != %q", s.kind, ka, kb)
		}
	}
	differ := []struct {
		kind carryover.ItemKind
		a, b string
	}{
		{carryover.KindCommand, "go test ./a", "go test ./b"},
		{carryover.KindError, "undefined: x", "undefined: y"},
		{carryover.KindGoal, "same", "same2"},
	}
	for _, d := range differ {
		if chunk.Key(d.kind, d.a) == chunk.Key(d.kind, d.b) {
			t.Errorf("Key(%s) collides for %q and %q", d.kind, d.a, d.b)
		}
	}
	if chunk.Key(carryover.KindGoal, "x") == chunk.Key(carryover.KindDecision, "x") {
		t.Error("keys of different kinds collide")
	}
	if k := chunk.Key(carryover.KindGoal, strings.Repeat("long text ", 100)); len(k) > 300 {
		t.Errorf("key not bounded: %d bytes", len(k))
	}
}
