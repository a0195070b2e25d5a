package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestStatusLine runs the interactive CLI in tmux (the status line is not
// run in -p mode) with carryover's status line installed over an existing
// one: both outputs show, and when the context left falls under 30 % the
// status line archives the transcript. Uninstall restores the settings.
func TestStatusLine(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tmux not found: the status line test drives the interactive CLI in it")
		}
		t.Skip("tmux not found: the status line test drives the interactive CLI in it")
	}
	h := newHarness(t)
	// What the interactive CLI asks on a first run, answered.
	claudeJSON, _ := json.Marshal(map[string]any{
		"hasCompletedOnboarding": true,
		"customApiKeyResponses":  map[string]any{"approved": []string{"dummy"}, "rejected": []string{}},
		"projects":               map[string]any{h.proj: map[string]any{"hasTrustDialogAccepted": true}},
	})
	h.writeFile(filepath.Join(h.home, ".claude.json"), claudeJSON, 0o600)
	payload := filepath.Join(h.dir, "statusline-payload.json")
	old := h.hookScript("old-status.sh", "cat > '"+payload+"'\necho OLD-STATUS")
	orig := fmt.Sprintf("{\n  \"statusLine\": {\n    \"type\": \"command\",\n    \"command\": %q\n  }\n}\n", old)
	h.writeFile(h.userSettings(), []byte(orig), 0o644)
	if out, err := h.carryover("install", "--scope", "user", "--no-mcp", "--statusline"); err != nil {
		t.Fatalf("install --statusline: %v\n%s", err, out)
	}

	// The CLI in a private tmux server, with the harness's environment.
	run := h.hookScript("run-claude.sh", "cd '"+h.proj+"'\nexec env -i "+shellEnv(h.env())+" TERM=xterm-256color '"+h.claude+"'")
	socket := filepath.Join(h.dir, "tmux.sock")
	tm := func(args ...string) string {
		out, err := exec.Command(tmux, append([]string{"-S", socket}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	tm("new-session", "-d", "-s", "e2e", "-x", "200", "-y", "50", run)
	pid, _ := strconv.Atoi(strings.TrimSpace(tm("display-message", "-p", "-t", "e2e", "#{pane_pid}")))
	// The CLI and its SessionEnd hooks write into the test directory: they
	// must be gone before it is removed.
	t.Cleanup(func() {
		exec.Command(tmux, "-S", socket, "kill-server").Run()
		waitExit(pid, 10*time.Second)
	})
	pane := func() string { return tm("capture-pane", "-p", "-t", "e2e") }
	waitFor := func(what string, ok func(string) bool) string {
		t.Helper()
		deadline := time.Now().Add(90 * time.Second)
		for {
			p := pane()
			if ok(p) {
				return p
			}
			if time.Now().After(deadline) {
				t.Fatalf("waiting for %s; the screen:\n%s", what, p)
			}
			time.Sleep(300 * time.Millisecond)
		}
	}

	// At start: the old line, then carryover's (no context figures yet).
	waitFor("the wrapped status line", func(p string) bool { return strings.Contains(p, "OLD-STATUS | not archived yet") })
	var in struct {
		SessionID     string `json:"session_id"`
		ContextWindow struct {
			Size int `json:"context_window_size"`
		} `json:"context_window"`
	}
	if err := json.Unmarshal(h.readFile(payload), &in); err != nil || in.ContextWindow.Size == 0 {
		t.Fatalf("the old status line's stdin: %v\n%s", err, h.readFile(payload))
	}

	// A turn that reports 80 % of the window used: 20 % left crosses 30 %.
	tm("send-keys", "-t", "e2e", "-l", fmt.Sprintf("hello [[BIG %d]]", in.ContextWindow.Size*8/10))
	time.Sleep(500 * time.Millisecond)
	tm("send-keys", "-t", "e2e", "Enter")
	screen := waitFor("the ingest at 30 % left", func(p string) bool { return strings.Contains(p, "archived at 30% left") })
	if !strings.Contains(screen, "ctx 80% used") {
		t.Errorf("status line after the big turn:\n%s", screen)
	}
	// Quit the way a user does; the CLI runs its SessionEnd hooks first.
	tm("send-keys", "-t", "e2e", "C-c")
	time.Sleep(200 * time.Millisecond)
	tm("send-keys", "-t", "e2e", "C-c")
	if !waitExit(pid, 15*time.Second) {
		t.Errorf("the CLI did not quit on Ctrl-C twice:\n%s", pane())
	}

	if err := json.Unmarshal(h.readFile(payload), &in); err != nil || in.SessionID == "" {
		t.Fatalf("no session id in the status line payload: %v", err)
	}
	st := h.openStore()
	sess, err := st.Session(t.Context(), in.SessionID)
	if err != nil || sess.Turns == 0 {
		t.Errorf("session %s after the threshold: %+v, %v", in.SessionID, sess, err)
	}

	if out, err := h.carryover("uninstall", "--scope", "user"); err != nil {
		t.Fatalf("uninstall: %v\n%s", err, out)
	}
	if got := string(h.readFile(h.userSettings())); got != orig {
		t.Errorf("uninstall left\n%s\nwant\n%s", got, orig)
	}
}

// waitExit waits until process pid is gone, and reports whether it went.
func waitExit(pid int, d time.Duration) bool {
	for deadline := time.Now().Add(d); pid > 0; time.Sleep(100 * time.Millisecond) {
		if gone(pid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// shellEnv quotes NAME=value pairs for a POSIX shell.
func shellEnv(env []string) string {
	q := make([]string, len(env))
	for i, kv := range env {
		q[i] = "'" + strings.ReplaceAll(kv, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
