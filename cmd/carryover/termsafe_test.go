//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/sqlite"
)

// Escape sequences a tool printed, archived as they were: OSC 52 (writes
// the clipboard) in its 7-bit and its C1 form, a window title, and a
// right-to-left override that reorders what follows it.
const (
	osc52   = "\x1b]52;c;cHduZWQ=\x07"
	osc52C1 = "\u009d52;c;cHduZWQ=\u009c"
	title   = "\x1b]0;pwned\x07"
	rlo     = "\u202e"
)

// TestTerminalSafety archives a tool output holding escape sequences and
// runs every command that prints archived text, on a terminal (a pty) and
// into a pipe. On the terminal no sequence reaches it raw (the only
// escapes are search's own bold); into a pipe, text is escaped too and
// JSON and raw lines carry them as JSON escapes.
func TestTerminalSafety(t *testing.T) {
	t.Setenv("TERM", "xterm")
	dir := t.TempDir()
	db := filepath.Join(dir, "store.db")
	env := map[string]string{"HOME": filepath.Join(dir, "home"), "CARRYOVER_DB": db, "CLAUDE_PROJECT_DIR": filepath.Join(dir, "proj")}
	const sid = "5afe7e57-0000-4000-8000-000000000001"
	transcript := filepath.Join(dir, sid+".jsonl")
	writeEscapeTranscript(t, transcript, sid, filepath.Join(dir, "proj"))
	// The sample session beside it, so that the words are rare enough
	// for a recall.
	demo := filepath.Join(dir, "demo.jsonl")
	if err := os.WriteFile(demo, demoSession, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := runCLI(t, env, "", "ingest", transcript, demo); code != 0 {
		t.Fatalf("ingest: %d %s %s", code, out, errOut)
	}
	// An injection as an imported audit record may hold it.
	st, err := sqlite.Open(context.Background(), db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := st.Chunks(context.Background(), carryover.ChunkFilter{SessionID: sid, Turn: -1})
	if err != nil || len(chunks) == 0 {
		t.Fatalf("chunks: %v %d", err, len(chunks))
	}
	if _, err := st.RecordInjection(context.Background(), carryover.Injection{Time: time.Now(), SessionID: sid,
		Project: chunks[0].Project, Event: "UserPromptSubmit", Chars: 80, Hash: "abc", ChunkIDs: []int64{chunks[0].ID},
		Text: "recalled: quokka banner " + osc52 + osc52C1 + rlo, Reason: "recall " + title}); err != nil {
		t.Fatal(err)
	}
	st.Close()

	chunk := fmt.Sprint(chunks[len(chunks)-1].ID)
	for _, args := range [][]string{
		{"search", "quokka", "banner"}, {"search", "quokka", "banner", "--json"},
		{"show", sid[:8]}, {"show", sid[:8], "--full"}, {"show", sid[:8], "--raw"},
		{"get", chunk}, {"get", chunk, "--json"}, {"get", sid[:8] + ":1-"}, {"get", sid[:8] + ":1-", "--json"},
		{"sessions"}, {"sessions", "--json"}, {"stats", "--global"}, {"stats", "--global", "--json"},
		{"status"}, {"recall", "--explain", "quokka", "banner", "output"}, {"recall", "quokka", "banner", "output"},
		{"audit", "--contents"}, {"audit", "--contents", "--json"},
		{"export"},
		{"note", "--session", sid[:8], "quokka " + osc52},
	} {
		name := strings.Join(args, " ")
		t.Run(name, func(t *testing.T) {
			out, code := runOnPTY(t, env, args...)
			if code != 0 {
				t.Fatalf("exit %d: %q", code, out)
			}
			if !strings.Contains(out, "quokka") && args[0] != "status" && args[0] != "note" {
				t.Fatalf("archived text not printed: %q", out)
			}
			// search's bold is the one escape a terminal may get.
			rest := strings.NewReplacer("\x1b[1m", "", "\x1b[22m", "").Replace(out)
			for _, bad := range []string{"\x1b", "\x07", "\u009d", "\u009c", rlo} {
				if strings.Contains(rest, bad) {
					t.Errorf("terminal got %q raw:\n%q", bad, out)
				}
			}
			piped, _, code := runCLI(t, env, "", args...)
			if code != 0 {
				t.Fatalf("into a pipe: exit %d", code)
			}
			if strings.Contains(piped, "\x1b") || strings.Contains(piped, "\x07") {
				t.Errorf("pipe got an escape raw:\n%q", piped)
			}
		})
	}
}

// writeEscapeTranscript writes a turn whose prompt, command output and
// reply hold escape sequences.
func writeEscapeTranscript(t *testing.T, path, sid, cwd string) {
	t.Helper()
	t0 := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	for i, m := range []map[string]any{
		{"type": "user", "message": map[string]any{"role": "user", "content": "Print the quokka banner " + title}},
		{"type": "assistant", "message": map[string]any{"model": "claude-opus-4-8", "id": "msg_1", "type": "message", "role": "assistant",
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{"command": "cat banner.txt"}}}}},
		{"type": "user", "message": map[string]any{"role": "user", "content": []any{map[string]any{"tool_use_id": "toolu_1", "type": "tool_result",
			"content": "quokka banner " + osc52 + " then " + osc52C1 + " and " + rlo + "txt.exe", "is_error": false}}}},
		{"type": "assistant", "message": map[string]any{"model": "claude-opus-4-8", "id": "msg_2", "type": "message", "role": "assistant",
			"content": []any{map[string]any{"type": "text", "text": "The quokka banner output is above " + title}}}},
		// A compaction whose trigger holds one too (Claude Code writes
		// "auto" or "manual"; a transcript or an import may say anything).
		{"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
			"compactMetadata": map[string]any{"trigger": "auto" + title, "preTokens": 1000}},
		{"type": "user", "isCompactSummary": true, "message": map[string]any{"role": "user", "content": "Summary: the quokka banner was printed."}},
		{"type": "user", "message": map[string]any{"role": "user", "content": "Now frame the quokka banner"}},
	} {
		m["uuid"] = fmt.Sprintf("e5c00000-0000-4000-8000-%012d", i+1)
		m["sessionId"], m["cwd"], m["isSidechain"], m["userType"], m["version"] = sid, cwd, false, "external", "2.1.0"
		m["timestamp"] = t0.Add(time.Duration(i) * time.Second).Format(time.RFC3339Nano)
		line, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(append(line, '\n'))
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// runOnPTY runs carryover in-process with stdout on a pseudo-terminal and
// returns what the terminal received.
func runOnPTY(t *testing.T, env map[string]string, args ...string) (string, int) {
	t.Helper()
	master, slave := openPTY(t)
	defer master.Close()
	got := make(chan []byte)
	go func() {
		data, _ := io.ReadAll(master) // ends with EIO once the slave is closed
		got <- data
	}()
	var errOut bytes.Buffer
	code := newApp(strings.NewReader(""), slave, &errOut, func(k string) string { return env[k] }).run(context.Background(), args)
	slave.Close()
	out := strings.ReplaceAll(string(<-got), "\r\n", "\n")
	if errOut.Len() > 0 && code != 0 {
		t.Logf("stderr: %s", errOut.String())
	}
	return out, code
}

// openPTY opens a pseudo-terminal pair with package syscall alone.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no pseudo-terminal: %v", err)
		}
		t.Skipf("no pseudo-terminal: %v", err)
	}
	unlock := int32(0)
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); errno != 0 {
		t.Fatalf("unlock pty: %v", errno)
	}
	var n uint32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); errno != 0 {
		t.Fatalf("pty number: %v", errno)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return master, slave
}
