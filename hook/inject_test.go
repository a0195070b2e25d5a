package hook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/sqlite"
)

// TestInjectionsKeepText: every injection's audit row holds exactly the
// text the hook wrote, secrets masked, and why it was chosen.
func TestInjectionsKeepText(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	run := func(ev hook.Event, name string, extra map[string]any) string {
		t.Helper()
		var out bytes.Buffer
		if res := e.handler().Run(ctx, ev, bytes.NewReader(e.payload(name, extra)), &out); res.Outcome != "ok" {
			t.Fatalf("%s: %+v", name, res)
		}
		return out.String()
	}
	additional := func(out string) string {
		t.Helper()
		var v struct {
			HookSpecificOutput struct {
				AdditionalContext string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil || v.HookSpecificOutput.AdditionalContext == "" {
			t.Fatalf("output %q: %v", out, err)
		}
		return v.HookSpecificOutput.AdditionalContext
	}

	instructions := run(hook.PreCompact, "PreCompact", map[string]any{"trigger": "manual"})
	// A note is shown in every restore; its secret, stored unmasked by a
	// hand-made or older archive, must reach neither Claude nor the log.
	const secret = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	st, err := sqlite.Open(ctx, e.db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddNote(ctx, carryover.Note{SessionID: demoID, Kind: "decision", Text: "deploy with the token " + secret}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	restore := additional(run(hook.SessionStart, "SessionStart", map[string]any{"source": "compact"}))
	recall := additional(run(hook.UserPromptSubmit, "UserPromptSubmit", map[string]any{"prompt": "which float64 Cents grep did we run in internal?"}))
	if !strings.Contains(restore, "deploy with the token") || strings.Contains(restore, secret) {
		t.Fatalf("the note is missing from the restore or its secret is not masked:\n%s", restore)
	}

	st, err = sqlite.Open(ctx, e.db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ins, err := st.Injections(ctx, demoID, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]carryover.Injection{}
	for _, in := range ins {
		got[in.Event] = in
	}
	for _, want := range []struct {
		event, text, reason string
	}{
		// The transcript holds one compaction already: this is the second.
		{"PreCompact:manual", strings.TrimSuffix(instructions, "\n"), "PreCompact instructions for compaction 2 (manual)"},
		{"SessionStart:compact", restore, "restore after compaction 1: "},
		{"UserPromptSubmit", recall, "recall: BM25 "},
	} {
		in, ok := got[want.event]
		if !ok {
			t.Errorf("no %s injection recorded: %+v", want.event, ins)
			continue
		}
		if in.Text != want.text {
			t.Errorf("%s: stored text differs from the output:\n got %q\nwant %q", want.event, in.Text, want.text)
		}
		if in.Chars != len(in.Text) {
			t.Errorf("%s: %d chars for a text of %d", want.event, in.Chars, len(in.Text))
		}
		if !strings.HasPrefix(in.Reason, want.reason) {
			t.Errorf("%s: reason %q, want it to start with %q", want.event, in.Reason, want.reason)
		}
		if strings.Contains(in.Text, secret) {
			t.Errorf("%s: the secret is in the audit log", want.event)
		}
	}
}
