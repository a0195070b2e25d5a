package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/sqlite"
	"github.com/carryover-dev/carryover/stats"
)

// demoFigures reads what the dashboard must show from the archive itself.
func demoFigures(t *testing.T, db string) (stats.Report, []carryover.Injection) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, db, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rep, err := stats.Compute(ctx, st, stats.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	injs, err := st.Injections(ctx, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions == 0 || rep.Chunks == 0 || len(rep.Hooks) == 0 || len(injs) == 0 {
		t.Fatalf("the demo archive is empty: %+v", rep)
	}
	return rep, injs
}

// wantFigures checks a dashboard text against the archive's figures.
func wantFigures(t *testing.T, text string, rep stats.Report, injs []carryover.Injection) {
	t.Helper()
	want := []string{
		fmt.Sprintf("%d sessions · %d turns · %d chunks", rep.Sessions, rep.Turns, rep.Chunks),
		fmt.Sprintf("compacted %d (%d auto, %d manual)", rep.Compactions.Total, rep.Compactions.Auto, rep.Compactions.Manual),
		fmt.Sprintf("%d tokens", rep.TokensInjected),
		"Latest hook calls", "Latest injections", carryover.ShortID(injs[0].SessionID),
	}
	for _, h := range rep.Hooks {
		want = append(want, h.Event)
	}
	for _, in := range injs {
		want = append(want, fmt.Sprintf("%d chars  ~%d tokens", in.Chars, in.Tokens))
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("dashboard lacks %q:\n%s", w, text)
		}
	}
}

func TestWatchPlainSnapshot(t *testing.T) {
	db, getenv := demoArchive(t)
	rep, injs := demoFigures(t, db)
	var out, errb bytes.Buffer
	if code := newApp(strings.NewReader(""), &out, &errb, getenv).run(context.Background(), []string{"watch"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	wantFigures(t, out.String(), rep, injs)
	if strings.Contains(out.String(), "\x1b[") {
		t.Error("escape sequences in plain output")
	}
}

// TestWatchProjectSubdirectory: --project takes a directory inside the
// project, as the other commands do, not only its exact root.
func TestWatchProjectSubdirectory(t *testing.T) {
	db, getenv := demoArchive(t)
	rep, injs := demoFigures(t, db)
	var out, errb bytes.Buffer
	args := []string{"watch", "--project", "/home/dev/projects/invoicer/internal/pdf"}
	if code := newApp(strings.NewReader(""), &out, &errb, getenv).run(context.Background(), args); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	wantFigures(t, out.String(), rep, injs)
}

func TestWatchPlainInterval(t *testing.T) {
	db, getenv := demoArchive(t)
	rep, _ := demoFigures(t, db)
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- newApp(strings.NewReader(""), &out, &out, getenv).run(ctx, []string{"watch", "--interval", "100ms"})
	}()
	// Wait for three lines, then stop it as Ctrl-C would.
	deadline := time.Now().Add(20 * time.Second)
	for strings.Count(out.String(), "\n") < 3 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) < 3 {
		t.Fatalf("%d lines: %q", len(lines), lines)
	}
	want := fmt.Sprintf("sessions=%d turns=%d chunks=%d compactions=%d", rep.Sessions, rep.Turns, rep.Chunks, rep.Compactions.Total)
	for _, l := range lines {
		if !strings.Contains(l, want) || !strings.Contains(l, fmt.Sprintf("tokens_injected=%d", rep.TokensInjected)) {
			t.Errorf("line %q lacks %q", l, want)
		}
	}
	if code := newApp(strings.NewReader(""), &out, &out, getenv).run(context.Background(), []string{"watch", "--interval", "1ms"}); code != 2 {
		t.Errorf("--interval 1ms: exit %d, want 2", code)
	}
}

// TestWatchTmux runs the dashboard on a real terminal (tmux), reads the
// screen, and quits it with q. $CARRYOVER_WATCH_CAPTURE, when set, gets the
// screen text (docs/img/watch.txt comes from there).
func TestWatchTmux(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tmux is not installed (apt-get install tmux)")
		}
		t.Skip("tmux is not installed: skipping the terminal test")
	}
	db, getenv := demoArchive(t)
	rep, injs := demoFigures(t, db)
	// The test binary runs as carryover under that name (see TestMain).
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "carryover")
	if err := os.Symlink(exe, bin); err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(t.TempDir(), "tmux.sock")
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(tmux, append([]string{"-S", socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	var env []string
	for _, k := range []string{"HOME", "CARRYOVER_DB", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "CARRYOVER_HOOK_TIMEOUT"} {
		env = append(env, k+"="+shellQuote(getenv(k)))
	}
	// After q the shell says how it ended and keeps the pane open.
	cmd := fmt.Sprintf("env %s %s watch --interval 500ms; echo watch-exited:$?; sleep 60", strings.Join(env, " "), shellQuote(bin))
	run("new-session", "-d", "-x", "120", "-y", "40", "-s", "watch", cmd)
	t.Cleanup(func() { _ = exec.Command(tmux, "-S", socket, "kill-server").Run() })

	waitFor := func(what string, ok func(string) bool) string {
		t.Helper()
		var screen string
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if screen = run("capture-pane", "-p", "-t", "watch"); ok(screen) {
				return screen
			}
		}
		t.Fatalf("tmux: no %s on the screen:\n%s", what, screen)
		return ""
	}
	screen := waitFor("dashboard", func(s string) bool { return strings.Contains(s, "Latest injections") && strings.Contains(s, "q quit") })
	wantFigures(t, screen, rep, injs)
	if p := os.Getenv("CARRYOVER_WATCH_CAPTURE"); p != "" {
		capture := strings.ReplaceAll(strings.TrimRight(screen, "\n"), db, "~/.local/share/carryover/carryover.db")
		if err := os.WriteFile(p, []byte(capture+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range strings.Split(screen, "\n") {
		if n := len([]rune(l)); n > 120 {
			t.Errorf("line of %d columns in a 120-column terminal: %q", n, l)
		}
	}
	run("send-keys", "-t", "watch", "q")
	waitFor("exit after q", func(s string) bool { return strings.Contains(s, "watch-exited:0") })
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
