package ingest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/ingest"
)

// turnLines is one turn of a transcript: a prompt, a command and its
// result, a closing text; every line with the given envelope.
func turnLines(session, cwd, branch string, sidechain bool, word string) []string {
	var lines []string
	ts := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	add := func(v map[string]any) {
		ts = ts.Add(time.Second)
		v["sessionId"], v["cwd"], v["gitBranch"], v["isSidechain"] = session, cwd, branch, sidechain
		v["timestamp"] = ts.Format(time.RFC3339Nano)
		v["uuid"] = fmt.Sprintf("%s-%s-%d", session, word, len(lines))
		b, _ := json.Marshal(v)
		lines = append(lines, string(b))
	}
	add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "Make the " + word + " tests pass"}})
	add(map[string]any{"type": "assistant", "message": map[string]any{"id": "msg_" + word, "role": "assistant", "content": []any{
		map[string]any{"type": "tool_use", "id": "tu_" + word, "name": "Bash", "input": map[string]any{"command": "go test ./" + word + "/..."}}}}})
	add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": "tu_" + word, "content": "ok  example.com/" + word}}}})
	add(map[string]any{"type": "assistant", "message": map[string]any{"id": "msg_" + word + "2", "role": "assistant", "content": []any{
		map[string]any{"type": "text", "text": word + " passes now."}}}})
	return lines
}

// repoWithWorktree makes a git repository with a linked worktree inside
// it, as Claude Code makes them, with the real git, and a directory
// "internal" in it.
func repoWithWorktree(t *testing.T) (repo, wt string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed")
		}
		t.Skip("git is not installed")
	}
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", filepath.Join(tmp, "home"))
	repo = filepath.Join(tmp, "app")
	wt = filepath.Join(repo, ".claude", "worktrees", "agent-a1")
	for _, args := range [][]string{
		{"init", "-q", "-b", "main", repo},
		{"-C", repo, "commit", "-q", "--allow-empty", "-m", "first"},
		{"-C", repo, "worktree", "add", "-q", "-b", "worktree-agent-a1", wt},
	} {
		cmd := exec.Command("git", args...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.MkdirAll(filepath.Join(repo, "internal"), 0o755); err != nil {
		t.Fatal(err)
	}
	return repo, wt
}

func session(t *testing.T, st carryover.Store, id string) carryover.Session {
	t.Helper()
	s, err := st.Session(context.Background(), id)
	if err != nil {
		t.Fatalf("session %s: %v", id, err)
	}
	return s
}

// TestSubagentLayouts archives a session with a subagent of each layout
// Claude Code wrote: 2.1's <session>/subagents/agent-<id>.jsonl (with its
// .meta.json, run in a worktree) and the older flat agent-<id>.jsonl whose
// lines name the parent.
func TestSubagentLayouts(t *testing.T) {
	ctx := context.Background()
	repo, wt := repoWithWorktree(t)
	dir := t.TempDir()
	const parent = "0e4b6d2a-1c3f-4a5b-8d7e-9f0a1b2c3d4e"
	sub := filepath.Join(dir, parent, "subagents", "agent-a1b2c3d4e5f6a7b8c.jsonl")
	flat := filepath.Join(dir, "agent-5e6f7a8b.jsonl")
	if err := os.MkdirAll(filepath.Dir(sub), 0o755); err != nil {
		t.Fatal(err)
	}
	writeLines(t, filepath.Join(dir, parent+".jsonl"), turnLines(parent, filepath.Join(repo, "internal"), "main", false, "gizmo"), 0)
	writeLines(t, sub, turnLines(parent, wt, "worktree-agent-a1", true, "sprocket"), 0)
	if err := os.WriteFile(filepath.Join(filepath.Dir(sub), "agent-a1b2c3d4e5f6a7b8c.meta.json"),
		[]byte(`{"agentType":"general-purpose","description":"Trace the  sprocket\ncache","worktreePath":"x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	writeLines(t, flat, turnLines(parent, repo, "main", true, "flange"), 0)

	st := openStore(t)
	a := &ingest.Archiver{Store: st}
	// The flat subagent first, as a sorted walk of the folder meets it.
	for _, p := range []string{flat, filepath.Join(dir, parent+".jsonl"), sub} {
		if _, err := a.File(ctx, p, ingest.Options{}); err != nil {
			t.Fatalf("ingest %s: %v", p, err)
		}
	}
	p := session(t, st, parent)
	if p.Parent != "" || p.Project != repo || p.Cwd != filepath.Join(repo, "internal") || p.Branch != "main" || p.Subagents != 2 {
		t.Errorf("parent = %+v: want the repository %s as project, its own cwd, 2 subagents", p, repo)
	}
	s := session(t, st, parent+"/agent-a1b2c3d4e5f6a7b8c")
	if s.Parent != parent || s.Project != repo || s.Cwd != wt || s.Branch != "worktree-agent-a1" || s.Title != "Trace the sprocket cache" {
		t.Errorf("2.1 subagent = %+v: want its parent, the parent's project, the worktree as cwd and branch, the description as title", s)
	}
	f := session(t, st, "agent-5e6f7a8b")
	if f.Parent != parent || f.Project != repo || f.Title != "Make the flange tests pass" {
		t.Errorf("flat subagent = %+v: want parent %s, project %s, its task as title", f, parent, repo)
	}
}

// TestReingestFillsParent archives a flat-layout subagent as carryover
// did before it read parents (under its own id, no parent), then ingests
// the unchanged file again: the parent, and a description that appeared
// meanwhile, are stored though there are no new lines.
func TestReingestFillsParent(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const parent = "0e4b6d2a-1c3f-4a5b-8d7e-9f0a1b2c3d4e"
	flat := filepath.Join(dir, "agent-5e6f7a8b.jsonl")
	writeLines(t, flat, turnLines(parent, "/home/dev/gone", "main", true, "flange"), 0)
	st := openStore(t)
	a := &ingest.Archiver{Store: st}
	if _, err := a.File(ctx, flat, ingest.Options{SessionID: "agent-5e6f7a8b"}); err != nil {
		t.Fatal(err)
	}
	if s := session(t, st, "agent-5e6f7a8b"); s.Parent != "" {
		t.Fatalf("archived with an explicit id: parent %q, want none", s.Parent)
	}
	if err := os.WriteFile(filepath.Join(dir, "agent-5e6f7a8b.meta.json"), []byte(`{"description":"Check the flanges"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := a.File(ctx, flat, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Lines != 0 || rep.Chunks != 0 {
		t.Errorf("re-ingest read %d lines, %d chunks; want none", rep.Lines, rep.Chunks)
	}
	s := session(t, st, "agent-5e6f7a8b")
	if s.Parent != parent || s.Title != "Check the flanges" || s.Project != "/home/dev/gone" || s.Chunks != 1 {
		t.Errorf("after the re-ingest: %+v", s)
	}
	// The ingest state is kept: appending resumes where it was.
	writeLines(t, flat, turnLines(parent, "/home/dev/gone", "main", true, "washer"), os.O_APPEND)
	if rep, err = a.File(ctx, flat, ingest.Options{}); err != nil || rep.Lines != 4 || rep.Restarted {
		t.Errorf("append after the re-ingest: %+v, %v; want 4 new lines", rep, err)
	}
}

// TestProjectStaysAcrossCd archives a session that starts in a
// subdirectory of a repository, then moves (cd) into another repository:
// the session keeps its first project, whatever the hook's cwd says.
func TestProjectStaysAcrossCd(t *testing.T) {
	ctx := context.Background()
	repo, _ := repoWithWorktree(t)
	other := t.TempDir()
	path := filepath.Join(t.TempDir(), sid+".jsonl")
	writeLines(t, path, turnLines(sid, filepath.Join(repo, "internal"), "main", false, "gizmo"), 0)
	st := openStore(t)
	a := &ingest.Archiver{Store: st}
	rep, err := a.File(ctx, path, ingest.Options{SessionID: sid, Cwd: filepath.Join(repo, "internal")})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Project != repo {
		t.Errorf("project %q, want the repository %s", rep.Project, repo)
	}
	writeLines(t, path, turnLines(sid, other, "main", false, "widget"), os.O_APPEND)
	rep, err = a.File(ctx, path, ingest.Options{SessionID: sid, Cwd: other, Project: other})
	if err != nil {
		t.Fatal(err)
	}
	if s := session(t, st, sid); rep.Project != repo || s.Project != repo || s.Cwd != filepath.Join(repo, "internal") {
		t.Errorf("after a cd: report project %q, session %+v; want %s kept", rep.Project, s, repo)
	}
	cs, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: sid, Turn: -1})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Project != repo {
			t.Errorf("chunk %d in project %q, want %s", c.Seq, c.Project, repo)
		}
	}
	// A transcript without any cwd takes the caller's.
	bare := filepath.Join(t.TempDir(), "99999999-2222-3333-4444-555555555555.jsonl")
	writeLines(t, bare, turnLines("99999999-2222-3333-4444-555555555555", "", "", false, "gadget"), 0)
	if rep, err := a.File(ctx, bare, ingest.Options{Cwd: filepath.Join(repo, "internal")}); err != nil || rep.Project != repo {
		t.Errorf("a transcript without cwd: project %q, %v; want %s", rep.Project, err, repo)
	}
}
