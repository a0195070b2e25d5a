package e2e

// Tests of Claude Code's own hook behaviour that carryover's design relies
// on, with small shell scripts as hooks. docs/claude-code-behaviour.md cites
// them by name.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPreCompactBlocks shows that a PreCompact hook blocks compaction,
// manual and automatic, by exiting 2 or by printing {"decision":"block"}.
// A blocked auto-compaction lets the turn go on with the whole history while
// the context is below the window's blocking limit; above it the turn fails
// with "Prompt is too long" and nothing is sent.
func TestPreCompactBlocks(t *testing.T) {
	hooks := []struct {
		name, script string
	}{
		{"exit2", `echo "blocked by e2e" >&2; exit 2`},
		{"decision-block", `echo '{"decision":"block","reason":"blocked by e2e"}'`},
	}
	// 60000 tokens crosses the auto-compaction threshold of autoCompactEnv
	// (40000) but not its blocking limit; 190000 crosses both.
	cases := []struct {
		name, trigger, big string
		overLimit          bool
	}{
		{"manual", "manual", "", false},
		{"auto", "auto", "[[BIG 60000]]", false},
		{"auto-over-limit", "auto", "[[BIG]]", true},
	}
	for _, hk := range hooks {
		for _, c := range cases {
			if c.overLimit && hk.name != "exit2" {
				continue // the same for both ways of blocking; once is enough
			}
			t.Run(hk.name+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				var env []string
				if c.trigger == "auto" {
					env = autoCompactEnv
				}
				h := newHarness(t, env...)
				payload := filepath.Join(h.dir, "precompact.json")
				h.writeHooks(map[string][]hookEntry{
					"PreCompact": {command("*", h.hookScript("precompact.sh", `cat > '`+payload+`'`+"\n"+hk.script))},
				})

				sid := h.prompt("", factPrompt).SessionID
				if c.trigger == "manual" {
					res := h.prompt(sid, "/compact")
					if !strings.Contains(res.Result, "Compaction blocked by PreCompact hook") || !strings.Contains(res.Result, "blocked by e2e") {
						t.Errorf("/compact result = %q, want the block message", res.Result)
					}
				} else {
					h.prompt(sid, "now something big "+c.big)
					sent := len(h.api.Messages())
					res, err := h.tryPrompt(sid, "what was the fact?")
					if err != nil {
						t.Fatal(err)
					}
					reqs := h.api.Messages()
					if c.overLimit {
						if !res.IsError || res.Result != "Prompt is too long" || len(reqs) != sent {
							t.Errorf("turn over the limit: got is_error=%v result %q and %d new requests, want \"Prompt is too long\" and none",
								res.IsError, res.Result, len(reqs)-sent)
						}
						// The session stays stuck while the hook blocks.
						res, err = h.tryPrompt(sid, "and now?")
						if err != nil {
							t.Fatal(err)
						}
						if !res.IsError || res.Result != "Prompt is too long" || len(h.api.Messages()) != sent {
							t.Errorf("next turn over the limit: got is_error=%v result %q, want \"Prompt is too long\" and no request",
								res.IsError, res.Result)
						}
					} else {
						// The turn went on with the whole uncompacted history.
						last := reqs[len(reqs)-1]
						if conv := last.ConversationText(); !strings.Contains(conv, fact) || strings.Contains(conv, fakeSummary) {
							t.Errorf("last request #%d does not carry the full history:\n%s", last.N, clip(conv, 2000))
						}
						if res.IsError || res.Result != last.Reply {
							t.Errorf("turn result = %q (is_error %v), want the reply %q", res.Result, res.IsError, last.Reply)
						}
					}
				}

				var in struct{ Trigger string }
				if err := json.Unmarshal(h.readFile(payload), &in); err != nil || in.Trigger != c.trigger {
					t.Fatalf("PreCompact did not run with trigger %s: payload %q (%v)", c.trigger, h.readFile(payload), err)
				}
				for _, r := range h.api.Messages() {
					if r.IsCompaction() {
						t.Errorf("request #%d is a compaction request: the hook did not block it", r.N)
					}
				}
				for _, l := range h.transcript(sid) {
					if l["subtype"] == "compact_boundary" || l["isCompactSummary"] == true {
						t.Errorf("transcript records a compaction: %v", l)
					}
				}
			})
		}
	}
}

// TestPostCompactCannotInject shows that PostCompact output, plain or as
// hookSpecificOutput.additionalContext, never becomes context of a request,
// while SessionStart(compact) context in the same compaction does.
func TestPostCompactCannotInject(t *testing.T) {
	for _, trigger := range []string{"manual", "auto"} {
		t.Run(trigger, func(t *testing.T) {
			t.Parallel()
			var env []string
			if trigger == "auto" {
				env = autoCompactEnv
			}
			h := newHarness(t, env...)
			h.writeHooks(map[string][]hookEntry{
				"PostCompact": {
					command("*", h.hookScript("post-plain.sh", `echo POSTCOMPACT-PLAIN-9c1`)),
					command("*", h.hookScript("post-json.sh",
						`echo '{"hookSpecificOutput":{"hookEventName":"PostCompact","additionalContext":"POSTCOMPACT-JSON-9c1"}}'`)),
				},
				"SessionStart": {command("compact", h.hookScript("start.sh",
					`echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"SESSIONSTART-CTX-9c1"}}'`))},
			})

			sid := h.prompt("", factPrompt).SessionID
			if trigger == "manual" {
				h.prompt(sid, "/compact")
			} else {
				h.prompt(sid, "now something big [[BIG]]")
			}
			h.prompt(sid, "what was the fact?")

			reqs := h.api.Messages()
			compacted := false
			for _, r := range reqs {
				compacted = compacted || r.IsCompaction()
				if sys := r.SystemText(); strings.Contains(sys, "POSTCOMPACT-") {
					t.Errorf("request #%d: PostCompact output in a system message:\n%s", r.N, clip(sys, 2000))
				}
				// After a manual /compact its output is only echoed as the
				// command's display text.
				conv := r.ConversationText()
				if trigger == "auto" && strings.Contains(conv, "POSTCOMPACT-") {
					t.Errorf("request #%d: PostCompact output in the conversation after auto-compaction", r.N)
				}
				if rest := withoutCommandOutput(conv); strings.Contains(rest, "POSTCOMPACT-") {
					t.Errorf("request #%d: PostCompact output outside <local-command-stdout>:\n%s", r.N, clip(rest, 2000))
				}
			}
			if !compacted {
				t.Fatal("no compaction request reached the API")
			}
			last := reqs[len(reqs)-1]
			if !strings.Contains(last.SystemText(), contextPrefix+"SESSIONSTART-CTX-9c1") {
				t.Errorf("last request #%d: SessionStart(compact) context missing:\n%s", last.N, clip(last.SystemText(), 2000))
			}
			if trigger == "manual" {
				// The echo holds the plain stdout, and the JSON only inside a
				// validation error: PostCompact has no hookSpecificOutput.
				conv := last.ConversationText()
				for _, want := range []string{"completed successfully: POSTCOMPACT-PLAIN-9c1", "Hook JSON output validation failed"} {
					if !strings.Contains(conv, want) {
						t.Errorf("last request #%d: /compact display echo lacks %q:\n%s", last.N, want, clip(conv, 3000))
					}
				}
			}
		})
	}
}

// TestSessionEndBudget shows that SessionEnd hooks get about 1.5 s once the
// session ends: a hook sleeping 3 s is cancelled before it finishes while
// one sleeping 0.2 s completes; a per-hook timeout raises the budget.
func TestSessionEndBudget(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	slow := filepath.Join(h.dir, "slow.done")
	fast := filepath.Join(h.dir, "fast.done")
	patient := filepath.Join(h.dir, "patient.done")
	h.writeHooks(map[string][]hookEntry{
		"SessionEnd": {
			command("", h.hookScript("slow.sh", `touch '`+slow+`.start'; sleep 3; touch '`+slow+`'`)),
			command("", h.hookScript("fast.sh", `sleep 0.2; touch '`+fast+`'`)),
		},
	})
	res := h.prompt("", "hello")
	exited := time.Now()
	t.Logf("the CLI exited %.2f s after the slow SessionEnd hook started", exited.Sub(h.modTime(slow+".start")).Seconds())
	// Give a hook that was not stopped time to finish.
	time.Sleep(3500 * time.Millisecond)
	if _, err := os.Stat(fast); err != nil {
		t.Errorf("the 0.2 s SessionEnd hook did not complete: %v", err)
	}
	if _, err := os.Stat(slow); err == nil {
		t.Errorf("the 3 s SessionEnd hook completed: it was not cancelled")
	}
	if res.Elapsed > 10*time.Second {
		t.Errorf("the session took %v to end", res.Elapsed)
	}

	// With a per-hook timeout of 5 s the same sleep completes.
	h.writeHooks(map[string][]hookEntry{
		"SessionEnd": {{Hooks: []hookCommand{{Type: "command", Command: h.hookScript("patient.sh", `sleep 3; touch '`+patient+`'`), Timeout: 5}}}},
	})
	h.prompt("", "hello again")
	if _, err := os.Stat(patient); err != nil {
		t.Errorf("the 3 s SessionEnd hook with timeout 5 did not complete: %v", err)
	}
}

// TestHooksRunInParallel shows that the hooks of one event run at the same
// time: two Stop hooks sleeping 1 s overlap.
func TestHooksRunInParallel(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var entries []hookEntry
	for _, name := range []string{"a", "b"} {
		log := filepath.Join(h.dir, "stop-"+name)
		entries = append(entries, command("", h.hookScript("stop-"+name+".sh",
			`touch '`+log+`.start'; sleep 1; touch '`+log+`.end'`)))
	}
	h.writeHooks(map[string][]hookEntry{"Stop": entries})
	h.prompt("", "hello")

	stamp := func(name string) time.Time { return h.modTime(filepath.Join(h.dir, name)) }
	aStart, aEnd := stamp("stop-a.start"), stamp("stop-a.end")
	bStart, bEnd := stamp("stop-b.start"), stamp("stop-b.end")
	if !aStart.Before(bEnd) || !bStart.Before(aEnd) {
		t.Errorf("Stop hooks ran one after the other: a %s–%s, b %s–%s", aStart.Format(time.StampMilli),
			aEnd.Format(time.StampMilli), bStart.Format(time.StampMilli), bEnd.Format(time.StampMilli))
	}
}

// TestInvalidJSONIsText shows that hook stdout that starts like JSON but
// does not parse is pasted into the context as plain text.
func TestInvalidJSONIsText(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.writeHooks(map[string][]hookEntry{
		"SessionStart": {command("startup", h.hookScript("start.sh", `echo '{"hookSpecificOutput": broken INVALID-JSON-4d2'`))},
	})
	h.prompt("", "hello")
	reqs := h.api.Messages()
	if len(reqs) == 0 {
		t.Fatal("no request reached the API")
	}
	want := `SessionStart:startup hook success: {"hookSpecificOutput": broken INVALID-JSON-4d2`
	if sys := reqs[0].SystemText(); !strings.Contains(sys, want) {
		t.Errorf("first request: want %q in a system message, got:\n%s", want, clip(sys, 2000))
	}
}

// withoutCommandOutput drops the <local-command-stdout> display echoes of
// slash commands from a conversation text.
func withoutCommandOutput(s string) string {
	const open, end = "<local-command-stdout>", "</local-command-stdout>"
	var b strings.Builder
	for {
		i := strings.Index(s, open)
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], end)
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		s = s[i+j+len(end):]
	}
	b.WriteString(s)
	return b.String()
}

// TestClaudeVersion checks the CLI is the release the facts were verified
// with (any version is accepted when CARRYOVER_CLAUDE picks the binary).
func TestClaudeVersion(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	out, errOut, _, err := h.run("--version")
	if err != nil {
		t.Fatalf("claude --version: %v\n%s", err, errOut)
	}
	got, _, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	t.Logf("Claude Code %s", got)
	if os.Getenv("CARRYOVER_CLAUDE") == "" && got != claudeVersion {
		t.Errorf("claude --version = %q, want %s: rerun scripts/install-claude-code.sh", out, claudeVersion)
	}
}

// modTime returns when a hook last touched a file.
func (h *harness) modTime(path string) time.Time {
	h.t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		h.t.Fatalf("hook marker: %v", err)
	}
	return fi.ModTime()
}
