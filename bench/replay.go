package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/redact"
	"github.com/carryover-dev/carryover/storeopen"
)

// Replay drives Claude Code's hooks over one session's transcript as Claude
// Code would: the transcript file grows as Claude Code wrote it, and each
// event runs through hook.Handler exactly as `carryover hook <event>` runs
// it, with a payload of the shape Claude Code sends, on the store of
// Config.DB. A Replay is not safe for concurrent use.
type Replay struct {
	// Config is the hooks' configuration; Config.DB is the store.
	Config   hook.Config
	Redactor *redact.Redactor // nil: the built-in detectors
	Log      *slog.Logger     // nil discards
	// Cwd, when set, is sent as the payloads' cwd instead of the
	// transcript's current directory: the project the hooks archive and
	// search the session under.
	Cwd string

	ID   string // the session id in payloads
	Path string // the transcript file the hooks read

	lines   [][]byte
	written int
	meta    lineMeta // of the lines written
}

// NewReplay starts a replay of lines as session id: an empty transcript
// file <dir>/<id>.jsonl (hooks take only absolute paths).
func NewReplay(cfg hook.Config, dir, id string, lines [][]byte) (*Replay, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	r := &Replay{Config: cfg, ID: id, Path: filepath.Join(dir, id+".jsonl"), lines: lines}
	if err := os.WriteFile(r.Path, nil, 0o600); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	return r, nil
}

// Written is how many of the lines the transcript holds.
func (r *Replay) Written() int { return r.written }

// Write appends the lines up to n (excluded) to the transcript. It only
// grows, as Claude Code's transcripts do.
func (r *Replay) Write(n int) error {
	if n < r.written || n > len(r.lines) {
		return fmt.Errorf("replay: write to line %d: %d written of %d", n, r.written, len(r.lines))
	}
	if n == r.written {
		return nil
	}
	f, err := os.OpenFile(r.Path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	_, err = f.Write(bytes.Join(r.lines[r.written:n], nil))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	for _, l := range r.lines[r.written:n] {
		r.meta.merge(l)
	}
	r.written = n
	return nil
}

// Compaction is what the hooks gave at one compaction.
type Compaction struct {
	Point
	// Instructions is what PreCompact printed for the summariser.
	Instructions string
	// Restore is SessionStart(compact)'s additionalContext: the block the
	// model sees after the compaction ("" when nothing was injected).
	Restore                  string
	PreCompact, SessionStart hook.Result
}

// Compact replays a compaction at p: the transcript up to the boundary,
// PreCompact (automatic), the transcript up to and including the summary,
// SessionStart(compact), PostCompact. Points must come in order.
func (r *Replay) Compact(ctx context.Context, p Point) (Compaction, error) {
	c := Compaction{Point: p}
	if p.Summary < p.Boundary {
		return c, fmt.Errorf("replay: compaction point %+v", p)
	}
	if err := r.Write(p.Boundary); err != nil {
		return c, err
	}
	out, res, err := r.Run(ctx, hook.PreCompact, map[string]any{"trigger": "auto", "custom_instructions": nil})
	c.Instructions, c.PreCompact = string(out), res
	if err != nil {
		return c, err
	}
	if err := r.Write(p.Summary); err != nil {
		return c, err
	}
	extra := map[string]any{"source": "compact"}
	if r.meta.Message.Model != "" {
		extra["model"] = r.meta.Message.Model
	}
	out, res, err = r.Run(ctx, hook.SessionStart, extra)
	c.SessionStart = res
	if err != nil {
		return c, err
	}
	if c.Restore, err = additionalContext(out); err != nil {
		return c, err
	}
	// Then PostCompact, as Claude Code fires it (its output is not
	// injected): it finishes what PreCompact left (the passages).
	_, _, err = r.Run(ctx, hook.PostCompact, map[string]any{"trigger": "auto"})
	return c, err
}

// Prompt runs UserPromptSubmit for prompt and returns what it injected.
func (r *Replay) Prompt(ctx context.Context, prompt string) (string, hook.Result, error) {
	extra := map[string]any{"prompt": prompt}
	if r.meta.PermissionMode != "" {
		extra["permission_mode"] = r.meta.PermissionMode
	}
	out, res, err := r.Run(ctx, hook.UserPromptSubmit, extra)
	if err != nil {
		return "", res, err
	}
	text, err := additionalContext(out)
	return text, res, err
}

// Run runs one event with the payload's common fields (session_id,
// transcript_path, cwd, hook_event_name, and prompt_id once the transcript
// has one) and the event's own, and returns what it printed. A run that
// did not end well (error, timeout, panic) is an error: its output would
// measure nothing.
func (r *Replay) Run(ctx context.Context, ev hook.Event, fields map[string]any) ([]byte, hook.Result, error) {
	cwd := r.Cwd
	if cwd == "" {
		cwd = r.meta.Cwd
	}
	if cwd == "" {
		cwd = filepath.Dir(r.Path)
	}
	payload := map[string]any{"session_id": r.ID, "transcript_path": r.Path, "cwd": cwd, "hook_event_name": string(ev)}
	if r.meta.PromptID != "" {
		payload["prompt_id"] = r.meta.PromptID
	}
	for k, v := range fields {
		payload[k] = v
	}
	in, err := json.Marshal(payload)
	if err != nil {
		return nil, hook.Result{}, err
	}
	// A handler per run: Run keeps its start time.
	h := &hook.Handler{Config: r.Config, Redactor: r.Redactor, Log: r.Log}
	var out bytes.Buffer
	res := h.Run(ctx, ev, bytes.NewReader(in), &out)
	switch res.Outcome {
	case "ok", "noop":
		return out.Bytes(), res, nil
	}
	return out.Bytes(), res, fmt.Errorf("replay %s of %s: %s: %w", ev, r.ID, res.Outcome, res.Err)
}

// Fork copies the store to db and returns a replay of the same transcript
// on the copy: what one hook run writes there (a recall's injection, which
// later recalls of the window skip) leaves the original as it was. The
// fork shares the transcript file: only the original may write it.
func (r *Replay) Fork(db string) (*Replay, error) {
	if err := copyStore(r.Config.DB, db); err != nil {
		return nil, fmt.Errorf("replay: fork store: %w", err)
	}
	f := *r
	f.Config.DB = db
	f.lines = nil // Write on a fork fails
	return &f, nil
}

// additionalContext returns the context a SessionStart or UserPromptSubmit
// output adds ("" for none).
func additionalContext(out []byte) (string, error) {
	if len(bytes.TrimSpace(out)) == 0 {
		return "", nil
	}
	var v struct {
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		return "", fmt.Errorf("hook output is not JSON: %w", err)
	}
	return v.HookSpecificOutput.AdditionalContext, nil
}

// copyStore copies a closed SQLite store with its write-ahead log and its
// journals (the runs, injections and kept reaches of the hooks that only
// read, not yet folded in).
func copyStore(src, dst string) error {
	for _, p := range append([]string{dst + "-wal", dst + "-shm"}, storeopen.JournalFiles(dst)...) {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	if err := copyFile(src, dst); err != nil {
		return err
	}
	from := append([]string{src + "-wal"}, storeopen.JournalFiles(src)...)
	to := append([]string{dst + "-wal"}, storeopen.JournalFiles(dst)...)
	for i := range from {
		if _, err := os.Lstat(from[i]); err != nil {
			continue
		}
		if err := copyFile(from[i], to[i]); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
