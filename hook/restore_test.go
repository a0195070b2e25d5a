package hook_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/sqlite"
)

// session writes a transcript line by line in Claude Code's format.
type session struct {
	t     *testing.T
	lines [][]byte
	n     int
	cwd   string // the session's directory; the demo project's when ""
}

func (s *session) add(v map[string]any) {
	s.n++
	v["uuid"] = fmt.Sprintf("00000000-0000-4000-8000-%012d", s.n)
	v["timestamp"] = time.Date(2026, 11, 20, 9, 0, s.n, 0, time.UTC).Format(time.RFC3339Nano)
	v["sessionId"], v["cwd"] = demoID, cmp.Or(s.cwd, demoProject)
	data, err := json.Marshal(v)
	if err != nil {
		s.t.Fatal(err)
	}
	s.lines = append(s.lines, append(data, '\n'))
}

func (s *session) user(text string) {
	s.add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
}

func (s *session) assistant(text string) {
	s.add(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant",
		"content": []any{map[string]any{"type": "text", "text": text}}}})
}

// call adds a tool call and its result.
func (s *session) call(name string, input map[string]any, result string, isError bool) {
	id := fmt.Sprintf("toolu_%04d", s.n)
	s.add(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant",
		"content": []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}}}})
	s.add(map[string]any{"type": "user", "message": map[string]any{"role": "user",
		"content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": result, "is_error": isError}}}})
}

// compact adds a compaction: its boundary and its summary.
func (s *session) compact(summary string) {
	s.add(map[string]any{"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
		"compactMetadata": map[string]any{"trigger": "auto", "preTokens": 160000}})
	s.add(map[string]any{"type": "user", "isCompactSummary": true, "message": map[string]any{"role": "user",
		"content": "This session is being continued from a previous conversation that ran out of context.\n\nSummary:\n" + summary}})
}

// restoreAfter writes the transcript as it stood at each of its
// compactions and runs PreCompact then SessionStart(compact) there, as
// Claude Code does; it returns the restore after each, and fails unless
// there are n, none empty.
func (s *session) restoreAfter(e *env, n int) []string {
	s.t.Helper()
	var out []string
	for i, l := range s.lines {
		if !bytes.Contains(l, []byte(`"compact_boundary"`)) {
			continue
		}
		s.write(e, i)
		cwd := cmp.Or(s.cwd, demoProject)
		if _, res := e.run(s.t, hook.PreCompact, map[string]any{"trigger": "auto", "cwd": cwd}); res.Outcome != "ok" {
			s.t.Fatalf("PreCompact: %+v", res)
		}
		s.write(e, i+2)
		ctx, res := e.run(s.t, hook.SessionStart, map[string]any{"source": "compact", "cwd": cwd})
		if res.Outcome != "ok" {
			s.t.Fatalf("SessionStart: %+v", res)
		}
		if ctx == "" {
			s.t.Fatalf("no restore after compaction %d", len(out)+1)
		}
		s.t.Logf("restore after compaction %d:\n%s", len(out)+1, ctx)
		out = append(out, ctx)
	}
	if len(out) != n {
		s.t.Fatalf("%d restores, want %d", len(out), n)
	}
	return out
}

// write writes the first n lines as a new file in the transcript's place,
// as an editor or a resume that rewrites the file does.
func (s *session) write(e *env, n int) {
	tmp := e.transcript + ".tmp"
	if err := os.WriteFile(tmp, bytes.Join(s.lines[:n], nil), 0o600); err != nil {
		s.t.Fatal(err)
	}
	if err := os.Rename(tmp, e.transcript); err != nil {
		s.t.Fatal(err)
	}
}

func emptyEnv(t *testing.T) *env {
	dir := t.TempDir()
	return &env{dir: dir, db: filepath.Join(dir, "store", "carryover.db"), transcript: filepath.Join(dir, demoID+".jsonl")}
}

// TestRestoreSeveralCompactions: after the second compaction the restore
// is for the window that just ended; what the first summary said is not
// given back as if it were lost.
func TestRestoreSeveralCompactions(t *testing.T) {
	e := emptyEnv(t)
	s := &session{t: t}
	s.user("Add PDF export to the invoice service.")
	s.call("Edit", map[string]any{"file_path": demoProject + "/internal/pdf/alpha_render.go", "old_string": "a", "new_string": "b"}, "ok", false)
	s.call("Bash", map[string]any{"command": "go test ./internal/pdf/ -run TestAlphaRender_v1"}, "ok  example.com/invoicer/internal/pdf 0.2s", false)
	s.compact("The first window edited internal/pdf/alpha_render.go. Distinctive summary phrase: LANTERN-OXBOW-7.")
	s.user("Now make the font directory configurable.")
	s.call("Edit", map[string]any{"file_path": demoProject + "/internal/config/beta_fonts.go", "old_string": "c", "new_string": "FontDir_v2 string"}, "ok", false)
	s.call("Bash", map[string]any{"command": "go test ./internal/config/ -run TestBetaFonts_v2"}, "ok  example.com/invoicer/internal/config 0.1s", false)
	s.compact("The second window made the font directory configurable.")
	s.user("Go on.")
	second := s.restoreAfter(e, 2)[1]
	for _, want := range []string{"window 2", "internal/config/beta_fonts.go", "TestBetaFonts_v2"} {
		if !strings.Contains(second, want) {
			t.Errorf("the second restore lacks %q", want)
		}
	}
	// The first window's work is in the first summary, which the second
	// folded in: not in play any more.
	for _, stale := range []string{"alpha_render.go", "TestAlphaRender_v1"} {
		if strings.Contains(second, stale) {
			t.Errorf("the second restore gives the first window's %q", stale)
		}
	}
	if strings.Contains(second, "LANTERN-OXBOW-7") {
		t.Error("the second restore gives back the first summary's content")
	}
}

// TestRestoreProseOnly: a session without tool calls gets its last
// request and its decisions back.
func TestRestoreProseOnly(t *testing.T) {
	e := emptyEnv(t)
	s := &session{t: t}
	s.user("We need to pick a queue for the invoice mailer. Compare RabbitMQ and NATS for us.")
	s.assistant("Both work. I'll recommend NATS JetStream because it ships as one static binary and the team already runs it for metrics.")
	s.user("Write the migration plan for moving the mailer from cron to NATS JetStream, in three phases.")
	s.assistant("Phase 1 runs both paths side by side; phase 2 moves the retries; phase 3 removes cron.")
	s.compact("The user asked about queues.")
	s.user("Continue.")
	r := s.restoreAfter(e, 1)[0]
	for _, want := range []string{"migration plan for moving the mailer from cron to NATS JetStream", "because it ships as one static binary"} {
		if !strings.Contains(r, want) {
			t.Errorf("restore lacks %q", want)
		}
	}
}

// TestRestoreHugeBinaryOutput: an enormous tool output with binary bytes
// never reaches the block; the block stays within its budget and is
// valid, printable text.
func TestRestoreHugeBinaryOutput(t *testing.T) {
	e := emptyEnv(t)
	s := &session{t: t}
	s.user("Find out why the PDF renderer output is corrupt.")
	var junk strings.Builder
	for i := range 3 << 20 / 16 {
		junk.WriteString(string([]byte{0, 1, 2, 0x1b, '[', '3', '1', 'm', byte(i), 0x7f, 0xc3, 0x28, 'Z', 'Q', 'X', '\n'}))
	}
	s.call("Bash", map[string]any{"command": "cat out/invoice_0042.pdf"}, junk.String(), false)
	s.call("Bash", map[string]any{"command": "go test ./internal/pdf/ -run TestRenderHeader_v3"}, "ok  example.com/invoicer/internal/pdf 0.3s", false)
	s.compact("The user asked about the corrupt PDF.")
	r := s.restoreAfter(e, 1)[0]
	if len(r) > 4000 {
		t.Errorf("restore of %d chars, over the budget", len(r))
	}
	if !utf8.ValidString(r) {
		t.Error("restore is not valid UTF-8")
	}
	for _, c := range r {
		if c < 0x20 && c != '\n' || c == 0x7f || c == 0x1b {
			t.Fatalf("restore holds control character %U:\n%q", c, r)
		}
	}
	if strings.Contains(r, "ZQX") {
		t.Errorf("restore holds the binary output:\n%s", r)
	}
	if !strings.Contains(r, "TestRenderHeader_v3") {
		t.Errorf("restore lacks the test run after the binary output:\n%s", r)
	}
}

// TestRestoreRewrittenTranscript: a transcript rewritten under the hook
// (the same lines written again, then more) is archived once: the restore
// lists each file and command once.
func TestRestoreRewrittenTranscript(t *testing.T) {
	e := emptyEnv(t)
	s := &session{t: t}
	s.user("Add PDF export to the invoice service.")
	s.call("Edit", map[string]any{"file_path": demoProject + "/internal/pdf/gamma_render.go", "old_string": "a", "new_string": "b"}, "ok", false)
	s.call("Bash", map[string]any{"command": "go test ./internal/pdf/ -run TestGammaRender_v1"}, "ok  example.com/invoicer/internal/pdf 0.2s", false)
	// A Stop hook archives what is there; each later write rewrites the
	// file whole (the same lines, then more).
	s.write(e, len(s.lines))
	if _, res := e.run(t, hook.Stop, nil); res.Err != nil {
		t.Fatalf("Stop: %+v", res)
	}
	s.call("Bash", map[string]any{"command": "go vet ./internal/pdf/"}, "", false)
	s.compact("The user asked for PDF export.")
	r := s.restoreAfter(e, 1)[0]
	for _, line := range []string{"- edited: internal/pdf/gamma_render.go", "- L5 $ go test ./internal/pdf/ -run TestGammaRender_v1"} {
		if n := strings.Count(r, line); n != 1 {
			t.Errorf("%q shown %d times, want once", line, n)
		}
	}
	// The archive holds each call once.
	st, err := sqlite.Open(context.Background(), e.db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	items, err := st.Items(context.Background(), carryover.ItemFilter{SessionID: demoID, Kinds: []carryover.ItemKind{carryover.KindFileEdit, carryover.KindCommand}})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, it := range items {
		count[it.Text]++
	}
	if len(count) != 3 || count["internal/pdf/gamma_render.go"] != 1 {
		t.Errorf("archived file edits and commands %v, want 3, each once", count)
	}
}

// TestRestoreInLinkedWorktree: a session in a linked worktree belongs to
// its repository's project (the main worktree), but its paths are shown
// relative to the worktree it works in, not written out in full.
func TestRestoreInLinkedWorktree(t *testing.T) {
	e := emptyEnv(t)
	dir, err := filepath.EvalSymlinks(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	// A repository and a linked worktree as git lays them out.
	repo, wt := filepath.Join(dir, "src", "app"), filepath.Join(dir, "src", "app-feature")
	admin := filepath.Join(repo, ".git", "worktrees", "app-feature")
	for _, d := range []string{admin, filepath.Join(wt, "internal", "pdf")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for path, text := range map[string]string{
		filepath.Join(wt, ".git"):         "gitdir: " + admin + "\n",
		filepath.Join(admin, "commondir"): "../..\n",
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := &session{t: t, cwd: wt}
	s.user("Add PDF export to the invoice service.")
	for _, f := range []string{"alpha_render.go", "beta_fonts.go", "gamma_pages.go"} {
		s.call("Edit", map[string]any{"file_path": filepath.Join(wt, "internal", "pdf", f), "old_string": "a", "new_string": "b"}, "ok", false)
	}
	s.call("Bash", map[string]any{"command": "go test ./internal/pdf/ -run TestAlphaRender_v1"}, "ok  example.com/invoicer/internal/pdf 0.2s", false)
	s.compact("Working on PDF export.")
	s.user("Go on.")
	r := s.restoreAfter(e, 1)[0]
	if !strings.Contains(r, "paths relative to "+wt+";") {
		t.Errorf("the restore does not state the worktree as the root of its paths")
	}
	if !strings.Contains(r, "internal/pdf/alpha_render.go") {
		t.Errorf("the restore lacks the edited file")
	}
	if strings.Contains(r, wt+"/internal") {
		t.Errorf("the restore writes the worktree's paths out in full")
	}
	st, err := sqlite.Open(context.Background(), e.db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if sess, err := st.Session(context.Background(), demoID); err != nil || sess.Project != repo {
		t.Errorf("the session's project is %q (%v), want the main worktree %s", sess.Project, err, repo)
	}
}
