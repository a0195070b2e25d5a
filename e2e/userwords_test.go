package e2e

import (
	"strings"
	"testing"
)

// userValues are what the user states in the first prompt; the fake's
// summary never repeats them.
var userValues = []string{"48213", "QZXV-PELICAN"}

// TestUserWordsSurviveCompaction: a short session whose first prompt
// states a decision with two values, one tool call, and a compaction whose
// summary lacks both. The compaction request's instructions ask to keep
// them, and the restore after it carries them.
func TestUserWordsSurviveCompaction(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.installCarryover()

	sid := h.prompt("", "We decided the staging deploy port is 48213 and the release codename is QZXV-PELICAN. "+
		"Now check the shell [[BASH echo shell-ok]]").SessionID
	h.prompt(sid, "/compact")
	h.prompt(sid, "go on")

	reqs := h.api.Messages()
	at := -1
	for i, r := range reqs {
		if r.IsCompaction() {
			at = i
		}
	}
	if at < 0 || at+1 >= len(reqs) {
		t.Fatalf("want a compaction request and one after it, got %d requests (compaction at %d)", len(reqs), at)
	}
	comp, next := reqs[at], reqs[at+1]
	last, _ := comp.LastUser()
	instr := last.Text()
	if i := strings.Index(instr, instructionsMark); i >= 0 {
		instr = instr[i:]
	} else {
		t.Fatalf("compaction request #%d lacks carryover's instructions", comp.N)
	}
	ctx := sessionStartContext(next.SystemText())
	if !strings.Contains(ctx, restoreMark) {
		t.Fatalf("request #%d after the compaction: no restore block in the system messages:\n%s", next.N, clip(next.SystemText(), 3000))
	}
	for _, v := range userValues {
		if strings.Contains(comp.Reply, v) {
			t.Fatalf("fake summary %q holds %s: the test proves nothing", comp.Reply, v)
		}
		if !strings.Contains(instr, v) {
			t.Errorf("compaction instructions lack the user's value %s:\n%s", v, clip(instr, 3000))
		}
		if !strings.Contains(ctx, v) {
			t.Errorf("restore after the compaction lacks the user's value %s:\n%s", v, clip(ctx, 4000))
		}
	}
}
