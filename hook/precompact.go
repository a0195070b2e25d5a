package hook

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/retrieve"
)

// PreCompact runs just before Claude Code summarises the conversation
// (manual /compact or automatic). It archives everything up to this point
// — after the compaction the model no longer sees it — and prints
// instructions that Claude Code appends to the summariser's prompt: keep
// exact paths, passing commands, open errors, decisions and constraints.
// It never blocks the compaction (that would take exit 2 or a "block"
// decision).
func (r *run) preCompact(ctx context.Context) error {
	rep, err := r.archiveLogged(ctx)
	if err != nil {
		return err
	}
	text, err := retrieve.Instructions(ctx, r.st, r.in.SessionID, rep.Window)
	if err != nil {
		return fmt.Errorf("instructions: %w", err)
	}
	reason := fmt.Sprintf("PreCompact instructions for compaction %d", rep.Window+1)
	if r.in.Trigger != "" {
		reason += " (" + r.in.Trigger + ")"
	}
	if extra := strings.TrimSpace(r.h.Config.CompactInstructions); extra != "" {
		text = strings.TrimRight(text, "\n") + "\n" + extra
		reason += ", with the configured compact_instructions"
	}
	text = safeContext(r.h.redact(text)) // redaction: defence in depth, the store holds masked text already
	if _, err := io.WriteString(r.out, text+"\n"); err != nil {
		return err
	}
	_, err = r.st.RecordInjection(ctx, carryover.Injection{
		Time: time.Now(), SessionID: r.in.SessionID, Project: rep.Project, Event: "PreCompact:" + r.in.Trigger,
		Window: rep.Window, Chars: len(text), Tokens: carryover.TokenEstimate(text), Hash: hashText(text),
		Latency: time.Since(r.h.Start), Text: text, Reason: reason,
	})
	return err
}
