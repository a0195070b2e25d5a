package mcpserver_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/mcpserver"
	"github.com/carryover-dev/carryover/redact"
)

// TestNotesMasked: remember and state store their text with secrets
// masked, and every tool result is masked too.
func TestNotesMasked(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	const sid = "1d1e0000-0000-4000-8000-000000000009"
	tok := "ghp_" + strings.Repeat("Wq4Ze", 7) + "P"
	red := redact.New(redact.Options{Extra: []redact.Pattern{{Kind: "acme", Re: regexp.MustCompile(`ACME-\d{6}`)}}})
	cs := connect(t, st, mcpserver.Options{Project: "/src/app", SessionID: sid, Redactor: red})
	text := mustCall(t, cs, "remember", map[string]any{"text": "CI pushes with GH_TOKEN=" + tok, "kind": "decision"})
	if !strings.Contains(text, "1 secret(s)") {
		t.Errorf("remember does not say it masked: %q", text)
	}
	mustCall(t, cs, "state", map[string]any{"text": "Next: activate licence ACME-123456"})
	notes, err := st.Notes(ctx, "", sid)
	if err != nil || len(notes) != 2 {
		t.Fatalf("notes %v, %v", notes, err)
	}
	if notes[0].Text != "CI pushes with GH_TOKEN=[REDACTED:github-pat]" || notes[1].Text != "Next: activate licence [REDACTED:acme]" {
		t.Errorf("notes stored %q, %q", notes[0].Text, notes[1].Text)
	}

	// A chunk archived before masking existed is masked on the way out.
	if err := st.Apply(ctx, carryover.Batch{
		Session: carryover.Session{ID: sid, Project: "/src/app"},
		Chunks:  []carryover.Chunk{{SessionID: sid, Project: "/src/app", Text: "release deploy used token " + tok, Hash: "h1", FirstLine: 1, LastLine: 1}},
	}); err != nil {
		t.Fatal(err)
	}
	for _, args := range []map[string]any{{"query": "release deploy token"}, {"session": sid, "turn": 0}} {
		tool := "search"
		if _, ok := args["session"]; ok {
			tool = "get"
		}
		out := mustCall(t, cs, tool, args)
		if strings.Contains(out, tok) || !strings.Contains(out, "[REDACTED:github-pat]") {
			t.Errorf("%s result not masked:\n%s", tool, out)
		}
	}
}
