package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// What Claude Code puts in front of the model for the tool hooks' context.
const (
	failureContextPrefix = "PostToolUseFailure:Bash hook additional context: "
	readContextPrefix    = "PostToolUse:Read hook additional context: "
)

// readyFile is what the failing command looks for: missing, it fails;
// touched, it passes.
const readyFile = "CARRYOVER-READY-91c2"

// toolRequest returns the request that carried the result of the tool call
// the fake answered prompt with, and the call's id.
func (h *harness) toolRequest(prompt string) (apiRequest, string) {
	h.t.Helper()
	reqs := h.api.Messages()
	for i := len(reqs) - 1; i >= 0; i-- {
		u, ok := reqs[i].LastUser()
		if !ok || reqs[i].ToolID == "" || !strings.Contains(u.Text(), prompt) {
			continue
		}
		for _, r := range reqs[i+1:] {
			if _, _, ok := r.ToolResult(reqs[i].ToolID); ok {
				return r, reqs[i].ToolID
			}
		}
		h.t.Fatalf("no request after #%d carried the result of %s", reqs[i].N, reqs[i].ToolID)
	}
	h.t.Fatalf("the fake never answered %q with a tool call", prompt)
	return apiRequest{}, ""
}

// TestFailureRecallE2E: a session fails a command and fixes it; in a later
// session the same command fails the same way, and the request that
// carries the failed result also carries, from PostToolUseFailure, what
// fixed it; once.
func TestFailureRecallE2E(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.installCarryover()
	fail := "[[BASH ls " + readyFile + "]]"
	// One turn: the chunker pairs a failure with the fix of its turn.
	first := h.prompt("", "check the marker "+fail+", create it [[BASH touch "+readyFile+"]] and check again "+fail).SessionID
	if h.readFile(filepath.Join(h.proj, readyFile)) == nil {
		t.Fatal("the fix did not run")
	}

	// A new session of the project: the marker is gone again.
	sid := h.prompt("", "clean up [[BASH rm "+readyFile+"]]").SessionID
	if sid == first {
		t.Fatal("the second session resumed the first")
	}
	const ask = "does the marker exist? "
	h.prompt(sid, ask+fail)
	req, id := h.toolRequest(ask + fail)
	res, isErr, _ := req.ToolResult(id)
	if !isErr || !strings.Contains(res, "No such file") {
		t.Fatalf("the command did not fail: %q (is_error %v)", res, isErr)
	}
	ctx, role, after := hookContext(req, failureContextPrefix)
	if role != "user" || !after {
		t.Errorf("PostToolUseFailure context in a %q message (right after the tool result: %v), want a system-reminder after the result", role, after)
	}
	if !strings.Contains(ctx, "this failed before") || !strings.Contains(ctx, "touch "+readyFile) || !strings.Contains(ctx, carryoverShort(first)) {
		t.Fatalf("request #%d: want the earlier fix as PostToolUseFailure context, got %q\nrequest: %s", req.N, ctx, clip(string(req.Body), 4000))
	}
	t.Logf("request #%d carries: %s", req.N, ctx)

	// The same failure again in this window: nothing more.
	const again = "and now? "
	h.prompt(sid, again+fail)
	req2, _ := h.toolRequest(again + fail)
	if n := strings.Count(string(req2.Body), "this failed before"); n != 1 {
		t.Errorf("request #%d holds the recall %d times, want once (the first, in the history)", req2.N, n)
	}
}

// TestFailureRecallSubagent: the failure recurs in a subagent; its hook
// (agent_id set, the parent's session_id) recalls the parent project's fix
// into the subagent's context.
func TestFailureRecallSubagent(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.installCarryover()
	fail := "[[BASH ls " + readyFile + "]]"
	h.prompt("", "check the marker "+fail+", create it [[BASH touch "+readyFile+"]] and check again "+fail)
	sid := h.prompt("", "clean up [[BASH rm "+readyFile+"]]").SessionID
	h.prompt(sid, "delegate the check [[AGENT ls "+readyFile+"]]")

	// The subagent's request that carries its failed call's result.
	var found bool
	for _, r := range h.api.Messages() {
		for _, m := range r.Messages {
			for _, b := range m.blocks() {
				if b.Type != "tool_result" || !b.IsError || !strings.Contains(contentText(b.Content), "No such file") {
					continue
				}
				if u, _ := r.LastUser(); strings.Contains(u.Text(), "this failed before") {
					found = true
					if ctx, _, after := hookContext(r, failureContextPrefix); !after || !strings.Contains(ctx, "touch "+readyFile) {
						t.Errorf("request #%d: subagent context %q (after the result: %v)", r.N, ctx, after)
					}
				}
			}
		}
	}
	if !found {
		t.Fatal("no subagent request carried the recall")
	}
	st := h.openStore()
	ins, err := st.Injections(context.Background(), sid, 0)
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	for _, in := range ins {
		events = append(events, in.Event)
	}
	if !slices.Contains(events, "PostToolUseFailure:subagent") {
		t.Errorf("the subagent's recall was not audited under the parent session %s: %v", sid, events)
	}
}

// TestFileRecallE2E: the session writes a file, rewrites it, compacts,
// and reads the file again: the request carrying the Read's result also
// carries what the session wrote into it before, which the file no longer
// shows, from PostToolUse. A file the Read shows whole gets nothing: the
// real payload's tool_response carries the lines read.
func TestFileRecallE2E(t *testing.T) {
	t.Parallel()
	// A restore budget too small for anything: what comes back is the
	// file recall's.
	h := newHarness(t, "CARRYOVER_BUDGET=150")
	h.installCarryover()
	const fileFact, noteFact = "CARRYOVER-FILE-5d1e", "CARRYOVER-NOTE-77aa"
	// File recall needs lines with identifiers that neither the summary
	// nor the Read shows: the first version of limits.md has them, notes.md
	// none once read whole.
	sid := h.prompt("", "write the limits [[WRITE limits.md "+fileFact+": max_upload_bytes = 44040192, see config/limits_v2.toml]]"+
		" then [[WRITE limits.md max_upload_bytes = 52428800]] and [[WRITE notes.md "+noteFact+": retry_budget_ms = 1500, see config/retry_v3.toml]]").SessionID
	if got := h.readFile(filepath.Join(h.proj, "limits.md")); strings.Contains(string(got), fileFact) || !strings.Contains(string(got), "52428800") {
		t.Fatalf("limits.md = %q: the Writes did not run", got)
	}
	// Before a compaction the model sees its own work: nothing to recall.
	const early = "read it [[READ limits.md]]"
	h.prompt(sid, early)
	if req, _ := h.toolRequest(early); strings.Contains(string(req.Body), "PostToolUse:Read hook") {
		t.Errorf("request #%d: file recall before any compaction", req.N)
	}
	h.prompt(sid, "/compact keep X")
	const notes = "read the notes [[READ notes.md]]"
	h.prompt(sid, notes)
	if req, _ := h.toolRequest(notes); strings.Contains(string(req.Body), "PostToolUse:Read hook") {
		t.Errorf("request #%d: file recall of a file the Read showed whole", req.N)
	}
	const read = "read the limits again [[READ limits.md]]"
	h.prompt(sid, read)
	req, _ := h.toolRequest(read)
	ctx, role, after := hookContext(req, readContextPrefix)
	if role != "user" || !after {
		t.Errorf("PostToolUse context in a %q message (right after the tool result: %v), want a system-reminder after the result", role, after)
	}
	if !strings.Contains(ctx, "limits.md") || !strings.Contains(ctx, fileFact) {
		t.Fatalf("request #%d: want the file's earlier change as PostToolUse context, got %q\nrequest: %s", req.N, ctx, clip(string(req.Body), 4000))
	}
	t.Logf("request #%d carries: %s", req.N, ctx)
	// Once per window.
	const third = "once more [[READ limits.md]]"
	h.prompt(sid, third)
	req3, _ := h.toolRequest(third)
	if n := strings.Count(string(req3.Body), readContextPrefix); n != 1 {
		t.Errorf("request #%d holds the file recall %d times, want once (the first, in the history)", req3.N, n)
	}
}

// carryoverShort is a session id as carryover shows it.
func carryoverShort(id string) string { return id[:8] }

// hookContext returns the context a tool hook added to a request, found
// after prefix in any message, up to the end of its block, and where it
// was: the message's role, and whether it came right after the message's
// tool_result, inside a <system-reminder>.
func hookContext(r apiRequest, prefix string) (ctx, role string, afterResult bool) {
	for _, m := range r.Messages {
		text := m.Text()
		i := strings.Index(text, prefix)
		if i < 0 {
			continue
		}
		rest := text[i+len(prefix):]
		if j := strings.Index(rest, "</system-reminder>"); j >= 0 {
			rest = rest[:j]
		}
		bs := m.blocks()
		for k, b := range bs {
			if b.Type == "tool_result" && k+1 < len(bs) && bs[k+1].Type == "text" &&
				strings.HasPrefix(bs[k+1].Text, "<system-reminder>\n"+prefix) {
				afterResult = true
			}
		}
		return strings.TrimSpace(rest), m.Role, afterResult
	}
	return "", "", false
}

// TestToolHooksInstalled: install adds the tool hooks with their matchers,
// and uninstall removes them.
func TestToolHooksInstalled(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.installCarryover()
	var s struct {
		Hooks map[string][]hookEntry `json:"hooks"`
	}
	if err := json.Unmarshal(h.readFile(h.userSettings()), &s); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"PostToolUseFailure": "*", "PostToolUse": "Read|Edit|Write|MultiEdit"}
	for ev, matcher := range want {
		groups := s.Hooks[ev]
		if len(groups) != 1 || groups[0].Matcher != matcher || len(groups[0].Hooks) != 1 ||
			!strings.HasSuffix(groups[0].Hooks[0].Command, " hook "+map[string]string{"PostToolUseFailure": "post-tool-use-failure", "PostToolUse": "post-tool-use"}[ev]) {
			t.Errorf("%s: %+v", ev, groups)
		}
	}
	h.uninstallCarryover()
	if _, err := os.Stat(h.userSettings()); !os.IsNotExist(err) {
		t.Errorf("settings after uninstall: %v", err)
	}
}
