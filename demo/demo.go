// Package demo replays a session through the PreCompact and
// SessionStart(compact) hooks on a temporary store, and shows what the
// restore gives back that the compaction summary does not.
package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/ident"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/transcript"
)

// SampleID is the session id of the built-in sample.
const SampleID = "7f3c2a9e-5b1d-4e8a-9c6f-2d4b8e1a0c53"

// Options say what the demo replays and how.
type Options struct {
	Sample     []byte // the built-in sample session, in Claude Code's transcript format
	Transcript string // a transcript to replay instead of Sample ("" for none)
	Budget     int    // restore budget in characters
	Keep       bool   // keep the temporary store and transcript
	// Handler runs the hooks as Claude Code's hooks do: the demo points it
	// at its own store and budget and sets its start to each hook's.
	Handler *hook.Handler
}

// Run replays a session through PreCompact and SessionStart(compact) on a
// temporary store and shows out what the restore gives back.
func Run(ctx context.Context, out io.Writer, opt Options) error {
	data, name := opt.Sample, "built-in sample session"
	sessionID := SampleID
	if opt.Transcript != "" {
		var err error
		if data, err = os.ReadFile(opt.Transcript); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		name = opt.Transcript
		// A renamed copy is labelled by the session id inside it, as
		// ingest would archive it, not by its file name.
		sessionID = ingest.SessionIDOf(opt.Transcript)
		if sessionID == "" || carryover.ValidSessionID(sessionID) != nil {
			sessionID = "demo-session"
		}
	}
	lines := transcript.SplitLines(data)
	cut, summaryEnd, cwd := CompactionPoint(lines)

	dir, err := os.MkdirTemp("", "carryover-demo-")
	if err != nil {
		return err
	}
	if opt.Keep {
		fmt.Fprintf(out, "demo files kept in %s\n", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	tpath := filepath.Join(dir, sessionID+".jsonl")
	h := *opt.Handler
	h.Config.DB = filepath.Join(dir, "carryover.db")
	h.Config.Budget = opt.Budget
	if cwd == "" {
		cwd = dir
	}

	fmt.Fprintf(out, "carryover demo: %s (%d lines", name, len(lines))
	if cut < len(lines) {
		fmt.Fprintf(out, ", compaction at line %d)\n", cut+1)
	} else {
		fmt.Fprintf(out, ", no compaction in it: pretending one at the end)\n")
	}

	// 1. The conversation up to the compaction is on disk; PreCompact fires.
	if err := os.WriteFile(tpath, bytes.Join(lines[:cut], nil), 0o600); err != nil {
		return err
	}
	payload := map[string]any{"session_id": sessionID, "transcript_path": tpath, "cwd": cwd,
		"hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": nil}
	hookOut, took, err := runHook(ctx, &h, hook.PreCompact, payload)
	if err != nil {
		return fmt.Errorf("demo: PreCompact: %w", err)
	}
	fmt.Fprintf(out, "\n▶ PreCompact hook: archived %d lines in %s; it prints these instructions for the summariser (%d chars):\n\n%s\n",
		cut, took.Round(time.Millisecond), len(strings.TrimSpace(hookOut)), indent(strings.TrimSpace(hookOut)))

	// 2. Claude Code writes the boundary and the summary, then SessionStart(compact) fires.
	f, err := os.OpenFile(tpath, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(bytes.Join(lines[cut:summaryEnd], nil))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	payload["hook_event_name"], payload["source"] = "SessionStart", "compact"
	delete(payload, "trigger")
	delete(payload, "custom_instructions")
	hookOut, took, err = runHook(ctx, &h, hook.SessionStart, payload)
	if err != nil {
		return fmt.Errorf("demo: SessionStart: %w", err)
	}
	var resp struct {
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if strings.TrimSpace(hookOut) == "" {
		fmt.Fprintf(out, "\n▶ SessionStart(compact) hook: nothing to restore (%s)\n", took.Round(time.Millisecond))
		return nil
	}
	if err := json.Unmarshal([]byte(hookOut), &resp); err != nil {
		return fmt.Errorf("demo: SessionStart printed invalid JSON: %w", err)
	}
	ctxText := resp.HookSpecificOutput.AdditionalContext
	summary := ""
	for _, l := range lines[cut:summaryEnd] {
		if e, err := transcript.Decode(bytes.TrimSpace(l)); err == nil && e.CompactSummary {
			summary = e.Text()
		}
	}
	if summary != "" {
		fmt.Fprintf(out, "\n▶ The summary Claude Code kept (%d chars; its start):\n\n%s\n", len(summary), indent(clip(summary, 900)))
	}
	fmt.Fprintf(out, "\n▶ SessionStart(compact) hook: restored %d chars (~%d tokens) in %s; Claude now sees this too:\n\n%s\n",
		len(ctxText), (len(ctxText)+3)/4, took.Round(time.Millisecond), indent(ctxText))
	if added := restoreAdds(ctxText, summary); len(added) > 0 {
		fmt.Fprintf(out, "\n▶ What the restore gives back that the summary does not state: %d exact details, e.g. %s\n",
			len(added), strings.Join(added[:min(len(added), 8)], ", "))
	}
	if opt.Keep {
		fmt.Fprintf(out, "\nEvery step is also searchable: carryover --db %s search \"<words>\"\n", h.Config.DB)
	} else {
		fmt.Fprintf(out, "\nNext: carryover install (hooks for your sessions), carryover ingest --all (the sessions you have),\n"+
			"then carryover search \"<words>\". Run the demo with --keep to search its store.\n")
	}
	return nil
}

// restoreAdds lists the specific identifiers (paths, names, ids, values)
// of the restore that the summary does not hold. The restore's headings
// are left out: they name the session and the project's root, no detail.
func restoreAdds(restore, summary string) []string {
	low := strings.ToLower(summary)
	var body strings.Builder
	for l := range strings.Lines(restore) {
		if !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "Details the summary does not state") {
			body.WriteString(l)
		}
	}
	var out []string
	for _, id := range ident.Specifics(body.String()) {
		if !strings.Contains(low, strings.ToLower(id)) && !strings.HasPrefix(id, "carryover") {
			out = append(out, id)
		}
	}
	return out
}

// clip shortens s to about n bytes at a line end.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if i := strings.LastIndexByte(s[:n], '\n'); i > n/2 {
		return s[:i] + "\n…"
	}
	return s[:n] + "…"
}

// runHook runs one hook through the same code path Claude Code triggers.
func runHook(ctx context.Context, h *hook.Handler, ev hook.Event, payload map[string]any) (string, time.Duration, error) {
	data, err := json.Marshal(payload)
	if err != nil {
		return "", 0, err
	}
	var out bytes.Buffer
	h.Start = time.Now()
	err = h.Run(ctx, ev, bytes.NewReader(data), &out).Err
	return out.String(), time.Since(h.Start), err
}

// CompactionPoint finds the last compact_boundary: the index of its line,
// the index just past the summary that follows it, and the session's cwd.
// Without a boundary both are len(lines).
func CompactionPoint(lines [][]byte) (cut, summaryEnd int, cwd string) {
	cut, summaryEnd = len(lines), len(lines)
	for i, l := range lines {
		e, err := transcript.Decode(bytes.TrimSpace(l))
		if err != nil {
			continue
		}
		if cwd == "" && e.Cwd != "" {
			cwd = e.Cwd
		}
		if e.IsCompactBoundary() {
			cut, summaryEnd = i, i+1
		}
		if e.CompactSummary && i >= cut {
			summaryEnd = i + 1
		}
	}
	return cut, summaryEnd, cwd
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}
