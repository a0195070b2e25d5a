package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/sqlite"
)

// TestAuditContentsTerminalSafe: the injected text and reason, which an
// imported record may fill with escape sequences, print escaped; --json
// gives them as they are.
func TestAuditContentsTerminalSafe(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "carryover.db")
	st, err := sqlite.Open(context.Background(), db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const (
		clipboard = "\x1b]52;c;cm0gLXJmIH4=\x07" // OSC 52: write the clipboard
		clear     = "\x1b[2J"
	)
	text := "## carryover: recalled from the archive\nrun " + clipboard + "\n\tindented\n"
	if _, err := st.RecordInjection(context.Background(), carryover.Injection{Time: time.Now(), SessionID: demoID,
		Event: "UserPromptSubmit", Window: 1, Chars: len(text), Hash: "h", Text: text, Reason: "recall: " + clear + "BM25 7.2 ≥ 2"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.RecordInjection(context.Background(), carryover.Injection{Time: time.Now().Add(-time.Hour), SessionID: demoID,
		Event: "SessionStart:compact", Window: 1, Chars: 3900, Hash: "old"}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	env := map[string]string{"HOME": dir, "CARRYOVER_DB": db}
	audit := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := newApp(strings.NewReader(""), &out, &errb, func(k string) string { return env[k] }).run(context.Background(),
			append([]string{"audit"}, args...)); code != 0 {
			t.Fatalf("audit %v: exit %d: %s", args, code, errb.String())
		}
		return out.String()
	}

	out := audit("--contents")
	if strings.Contains(out, "\x1b") || strings.Contains(out, "\x07") {
		t.Errorf("raw escape sequences printed:\n%q", out)
	}
	for _, want := range []string{
		`    why: recall: \e[2JBM25 7.2 ≥ 2` + "\n",
		"    text:\n    | ## carryover: recalled from the archive\n    | run \\e]52;c;cm0gLXJmIH4=\\x07\n    | \tindented\n",
		"    text: not kept (recorded before carryover kept the injected text)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("audit --contents lacks %q:\n%s", want, out)
		}
	}

	var entries []struct {
		Event, Reason, Text string
	}
	if err := json.Unmarshal([]byte(audit("--json", "--contents")), &entries); err != nil || len(entries) != 2 {
		t.Fatalf("audit --json --contents: %v, %d entries", err, len(entries))
	}
	// Newest record first: the one without text.
	if entries[1].Text != text || entries[1].Reason != "recall: "+clear+"BM25 7.2 ≥ 2" || entries[0].Text != "" {
		t.Errorf("JSON entries: %+v", entries)
	}
}
