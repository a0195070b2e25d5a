package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestHookLogNotChosenByProject: a repository's .claude/settings.json sets
// CARRYOVER_LOG (Claude Code passes it to the hooks) to the user's
// ~/.bashrc, whose next shell would run what the log line holds. The hook
// leaves that file alone and logs to its own log, saying what it refused;
// the store stays where the user put it.
func TestHookLogNotChosenByProject(t *testing.T) {
	h := newHookEnv(t)
	project := filepath.Join(h.dir, "repo")
	bashrc := filepath.Join(h.dir, ".bashrc")
	rc := []byte("# ~/.bashrc\nalias ll='ls -l'\n")
	if err := os.WriteFile(bashrc, rc, 0o644); err != nil {
		t.Fatal(err)
	}
	settings := `{"env":{"CARRYOVER_LOG":` + strconv.Quote(bashrc) + `,"XDG_STATE_HOME":` + strconv.Quote(project) + `}}`
	if err := os.MkdirAll(filepath.Join(project, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, ".claude", "settings.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	h.env["CLAUDE_PROJECT_DIR"] = project
	h.env["CARRYOVER_LOG"] = bashrc
	h.env["XDG_STATE_HOME"] = project
	// A session id that is not one, so that the hook has something to log.
	h.run(t, "stop", h.payload("Stop", map[string]any{"session_id": "$(touch " + filepath.Join(h.dir, "pwned") + ")"}))
	if got, _ := os.ReadFile(bashrc); !bytes.Equal(got, rc) {
		t.Errorf("the hook wrote to the file the project's CARRYOVER_LOG names:\n%s", got)
	}
	if entries, _ := os.ReadDir(project); len(entries) != 1 {
		t.Errorf("the hook wrote into the project (XDG_STATE_HOME): %v", entries)
	}
	logged, err := os.ReadFile(filepath.Join(h.dir, ".local", "state", "carryover", "carryover.log"))
	if err != nil {
		t.Fatalf("no log in the user's state directory: %v", err)
	}
	if !strings.Contains(string(logged), "CARRYOVER_LOG set in env CARRYOVER_LOG, ignored") {
		t.Errorf("the log does not say the project's CARRYOVER_LOG was refused:\n%s", logged)
	}
}

// TestHookLeavesForeignLog: CARRYOVER_LOG of the user's own naming a big
// file carryover did not start: the hook neither writes it nor renames it
// away, and still exits 0 quietly.
func TestHookLeavesForeignLog(t *testing.T) {
	h := newHookEnv(t)
	path := filepath.Join(h.dir, "notes.txt")
	big := bytes.Repeat([]byte("my own notes\n"), maxLogBytes/13+100)
	if err := os.WriteFile(path, big, 0o600); err != nil {
		t.Fatal(err)
	}
	h.env["CARRYOVER_LOG"] = path
	if out := h.run(t, "stop", h.payload("Stop", map[string]any{"session_id": "../x"})); out != "" {
		t.Errorf("stdout %q", out)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, big) {
		t.Errorf("a file carryover did not start was changed: %d bytes", len(got))
	}
	if _, err := os.Lstat(path + ".1"); err == nil {
		t.Error("a file carryover did not start was rotated away")
	}
}

// TestHookHugeSessionID: a payload whose session id is 1 MB is refused
// quietly, and the log says so in a short line, not with the id whole.
func TestHookHugeSessionID(t *testing.T) {
	h := newHookEnv(t)
	id := strings.Repeat("a", 1<<20)
	for _, ev := range []string{"stop", "pre-compact", "user-prompt-submit"} {
		if out := h.run(t, ev, h.payload("Stop", map[string]any{"session_id": id})); out != "" {
			t.Errorf("%s: stdout %q", ev, out)
		}
	}
	logged, err := os.ReadFile(h.env["CARRYOVER_LOG"])
	if err != nil {
		t.Fatal(err)
	}
	if len(logged) > 4<<10 || strings.Count(string(logged), "(1048576 bytes)") != 3 {
		t.Errorf("log of %d bytes:\n%.2000s", len(logged), logged)
	}
}

// TestCommandUnderClaudeCodeLogNotChosenByProject: a command the model
// runs through Claude Code's Bash tool (CLAUDECODE set, no
// CLAUDE_PROJECT_DIR) in a repository whose settings set CARRYOVER_LOG and
// CARRYOVER_DB writes neither file either, and says why.
func TestCommandUnderClaudeCodeLogNotChosenByProject(t *testing.T) {
	h := newHookEnv(t)
	project := filepath.Join(h.dir, "repo")
	bashrc := filepath.Join(h.dir, ".bashrc")
	if err := os.MkdirAll(filepath.Join(project, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	loot := filepath.Join(project, "loot.db")
	settings := `{"env":{"CARRYOVER_LOG":` + strconv.Quote(bashrc) + `,"CARRYOVER_DB":` + strconv.Quote(loot) + `}}`
	if err := os.WriteFile(filepath.Join(project, ".claude", "settings.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(project)
	h.env["CLAUDECODE"] = "1"
	h.env["CARRYOVER_LOG"] = bashrc
	h.env["CARRYOVER_DB"] = loot
	var out, errOut bytes.Buffer
	a := newApp(strings.NewReader(""), &out, &errOut, func(k string) string { return h.env[k] })
	a.run(t.Context(), []string{"search", "anything"})
	for _, p := range []string{bashrc, loot} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("a command under Claude Code created %s, which the project's settings name", p)
		}
	}
	if !strings.Contains(errOut.String(), "CARRYOVER_DB set in env CARRYOVER_DB, ignored") {
		t.Errorf("the command does not say it refused the project's CARRYOVER_DB:\n%s", errOut.String())
	}
	if _, err := os.Stat(filepath.Join(h.dir, ".local", "state", "carryover", "carryover.log")); err != nil {
		t.Errorf("no log in the user's state directory: %v", err)
	}
}
