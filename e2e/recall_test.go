package e2e

import (
	"strings"
	"testing"
)

const recallPrefix = "UserPromptSubmit hook additional context: "

// turnContext returns the hook context Claude Code added for the request's
// own turn: the role "system" messages after its last user message.
func turnContext(r apiRequest) string {
	last := -1
	for i, m := range r.Messages {
		if m.Role == "user" {
			last = i
		}
	}
	var parts []string
	for _, m := range r.Messages[last+1:] {
		if m.Role == "system" {
			parts = append(parts, m.Text())
		}
	}
	return strings.Join(parts, "\n")
}

// requestFor returns the last request whose last user message holds text.
func (h *harness) requestFor(text string) apiRequest {
	h.t.Helper()
	reqs := h.api.Messages()
	for i := len(reqs) - 1; i >= 0; i-- {
		if u, ok := reqs[i].LastUser(); ok && strings.Contains(u.Text(), text) {
			return reqs[i]
		}
	}
	h.t.Fatalf("no request carried the prompt %q", text)
	return apiRequest{}
}

// TestRecallOnPrompt: after a compaction, a prompt about a detail from
// before it gets the detail injected by UserPromptSubmit; a prompt about
// something never discussed gets nothing; and a new session in the same
// project (as after /clear) recalls the earlier session's detail.
func TestRecallOnPrompt(t *testing.T) {
	t.Parallel()
	// A restore budget too small for anything: what comes back below comes
	// from recall, not from the restore block.
	h := newHarness(t, "CARRYOVER_BUDGET=150")
	h.installCarryover()

	sid := h.prompt("", factPrompt).SessionID
	h.checkFactRan()
	// A few more turns: BM25 needs more than a handful of chunks before a
	// term is rare enough to count.
	for _, p := range []string{"sketch the README sections", "which sorting algorithm suits nearly sorted data?", "summarise the B-tree split rule"} {
		h.prompt(sid, p)
	}
	h.prompt(sid, "/compact keep X")

	const ask = "what did echo write into fact.txt?"
	h.prompt(sid, ask)
	req := h.requestFor(ask)
	if ctx := turnContext(req); strings.Contains(ctx, "SessionStart hook additional context") {
		t.Fatalf("the restore injected something despite its tiny budget:\n%s", clip(ctx, 2000))
	}
	if ctx := turnContext(req); !strings.Contains(ctx, recallPrefix) || !strings.Contains(ctx, fact) {
		t.Errorf("request #%d: want %s recalled by UserPromptSubmit, turn context:\n%s", req.N, fact, clip(ctx, 3000))
	}
	if conv := req.ConversationText(); strings.Contains(conv, fact) {
		t.Fatalf("the fact is still in the conversation: the compaction did not drop it")
	}

	const unrelated = "how do I tune the kubernetes ingress controller's proxy buffer sizes?"
	h.prompt(sid, unrelated)
	if ctx := turnContext(h.requestFor(unrelated)); strings.Contains(ctx, recallPrefix) {
		t.Errorf("a prompt about something never discussed got context injected:\n%s", clip(ctx, 2000))
	}

	// A new session of the same project starts with nothing archived.
	const again = "earlier, what did echo write into fact.txt?"
	res := h.prompt("", again)
	if res.SessionID == sid {
		t.Fatalf("the new prompt resumed session %s", sid)
	}
	if ctx := turnContext(h.requestFor(again)); !strings.Contains(ctx, recallPrefix) || !strings.Contains(ctx, fact) {
		t.Errorf("new session: want %s recalled from the earlier session, turn context:\n%s", fact, clip(ctx, 3000))
	}
}
