package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/retrieve"
	"github.com/carryover-dev/carryover/sqlite"
)

// cmdHook runs one hook event. Whatever happens it exits 0 and writes either
// nothing or one valid JSON object (plain text for PreCompact): exit 2 would
// block compaction, and anything else on stdout is pasted into the model's
// context. Failures go to the log.
func (a *app) cmdHook(ctx context.Context, args []string) int {
	a.openLog()
	if len(args) != 1 {
		a.log.Error("hook: want exactly one event argument", "args", args)
		return 0
	}
	ev, ok := hook.ParseEvent(args[0])
	if !ok {
		a.log.Error("hook: unknown event", "event", args[0])
		return 0
	}
	cfg, err := a.loadConfig(a.getenv("CLAUDE_PROJECT_DIR"))
	if err != nil {
		// No absolute place for the store: doing nothing beats a store in the project.
		a.log.Error("hook: nothing done", "event", ev, "err", err)
		return 0
	}
	timeout := cfg.HookTimeout
	if ev == hook.SessionEnd {
		timeout = cfg.SessionEndTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	type result struct {
		out      []byte
		st       *sqlite.Store // still open, to record the run on; nil when closed
		err      error
		panicked bool
	}
	// The payload is kept to say which session the run belongs to.
	payload := &captureReader{r: a.stdin}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{err: fmt.Errorf("panic: %v\n%s", r, debug.Stack()), panicked: true}
			}
		}()
		var out bytes.Buffer
		st, err := a.runHook(ctx, cfg, ev, payload, &out)
		done <- result{out: out.Bytes(), st: st, err: err}
	}()
	select {
	case r := <-done:
		elapsed := time.Since(a.start)
		if errors.Is(r.err, carryover.ErrForgotten) {
			// Not even the run is recorded: its row would name the session.
			a.log.Info("hook: the session was forgotten: nothing archived or injected", "event", ev, "ms", elapsed.Milliseconds())
			if r.st != nil {
				r.st.Close()
			}
			return 0
		}
		outcome := "ok"
		switch {
		case r.panicked:
			outcome = "panic"
		case r.err != nil:
			outcome = "error"
		case len(r.out) == 0:
			outcome = "noop"
		}
		if r.err != nil {
			a.log.Error("hook failed", "event", ev, "ms", elapsed.Milliseconds(), "err", r.err)
			if ev != hook.PreCompact {
				// Only a complete, valid output is ever written.
				a.recordHookRun(ctx, cfg, ev, payload, r.st, outcome, 0, elapsed)
				return 0
			}
		}
		if len(r.out) > 0 {
			_, _ = a.stdout.Write(r.out)
		}
		a.log.Info("hook", "event", ev, "ms", elapsed.Milliseconds(), "out", len(r.out))
		a.recordHookRun(ctx, cfg, ev, payload, r.st, outcome, len(r.out), elapsed)
	case <-ctx.Done():
		// The worker may still hold a write transaction; exiting rolls it
		// back and committed batches stay.
		a.log.Error("hook deadline exceeded", "event", ev, "timeout", timeout)
		a.recordHookRun(ctx, cfg, ev, payload, nil, "timeout", 0, time.Since(a.start))
	}
	return 0
}

// recordHookRun stores one hook run for stats, after the output is written,
// on st, the store the hook used, when it is still open (and closes it), or
// else on the store opened again. It is best effort and bounded: it waits
// on a busy store for the rest of the hook's deadline, at most recordMax
// and at least recordMin (a run that timed out is still worth counting),
// well inside the timeouts install gives Claude Code.
func (a *app) recordHookRun(ctx context.Context, cfg config, ev hook.Event, payload *captureReader, st *sqlite.Store, outcome string, chars int, latency time.Duration) {
	const recordMin, recordMax = 100 * time.Millisecond, 500 * time.Millisecond
	budget := recordMax
	if dl, ok := ctx.Deadline(); ok {
		budget = min(max(time.Until(dl), recordMin), recordMax)
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), budget)
	defer cancel()
	in, _ := hook.Decode(bytes.NewReader(payload.bytes())) // fields stay empty when it is not valid
	name := string(ev)
	switch {
	case ev == hook.SessionStart && in.Source != "":
		name += ":" + in.Source
	case (ev == hook.PreCompact || ev == hook.PostCompact) && in.Trigger != "":
		name += ":" + in.Trigger
	}
	if validSessionID(in.SessionID) != nil {
		in.SessionID = ""
	}
	if st == nil {
		var err error
		if st, err = sqlite.Open(rctx, cfg.DB, sqlite.Options{BusyTimeout: budget}); err != nil {
			a.log.Error("record hook run: open store", "err", err)
			return
		}
	}
	defer st.Close()
	err := st.RecordHookRun(rctx, carryover.HookRun{Time: a.start, SessionID: in.SessionID, Project: in.Cwd,
		Event: name, Latency: latency, Outcome: outcome, Chars: chars})
	if err != nil {
		a.log.Error("record hook run", "err", err)
	}
}

// captureReader keeps a copy of what is read through it, safe to read from
// another goroutine (a hook that timed out may still be reading).
type captureReader struct {
	r   io.Reader
	mu  sync.Mutex
	buf []byte
}

func (c *captureReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.mu.Lock()
	if len(c.buf)+n <= hook.MaxInput {
		c.buf = append(c.buf, p[:n]...)
	}
	c.mu.Unlock()
	return n, err
}

func (c *captureReader) bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.buf)
}

// handleHook does the work of one event and writes its output to out.
func (a *app) handleHook(ctx context.Context, cfg config, ev hook.Event, stdin io.Reader, out io.Writer) error {
	st, err := a.runHook(ctx, cfg, ev, stdin, out)
	if st != nil {
		st.Close()
	}
	return err
}

// readCachePages is the page cache of a hook or command that mostly reads:
// at 100k chunks a recall reads some 500 pages, and a cache of 64 instead
// of 500 reads about 30 of them again but spares some 800 page faults
// (8-11 ms).
const readCachePages = 64

// runHook is handleHook leaving the local store it used open, for the
// caller to record the run on and close: opening it again would cost
// about as much as the work of a hook that finds nothing to inject. The
// store is nil when it was not opened, was damaged, or was a fresh one.
func (a *app) runHook(ctx context.Context, cfg config, ev hook.Event, stdin io.Reader, out io.Writer) (*sqlite.Store, error) {
	in, err := hook.Decode(stdin)
	if err != nil {
		return nil, err
	}
	if err := validSessionID(in.SessionID); err != nil {
		return nil, err
	}
	if err := validTranscriptPath(in.TranscriptPath); err != nil {
		return nil, err
	}
	// Nothing to do: not even the store is opened.
	if ev == hook.SessionStart && in.Source != "compact" && in.Source != "resume" && !(in.Source == "startup" && cfg.StartupBrief) ||
		ev == hook.UserPromptSubmit && !cfg.Recall {
		return nil, nil
	}
	// Waiting for a busy store must leave time to finish inside the deadline:
	// half of it where a restore or recall follows the write; most of it
	// where archiving is all there is to do (a lock lost there is a write
	// lost until the next hook; SessionEnd has no next one).
	busy := time.Second
	if dl, ok := ctx.Deadline(); ok {
		left := time.Until(dl)
		busy = max(left/2, 50*time.Millisecond)
		if ev != hook.SessionStart && ev != hook.UserPromptSubmit && ev != hook.PreCompact {
			busy = max(left*9/10, 50*time.Millisecond)
		}
	}
	if cfg.DatabaseURL != "" {
		return nil, a.hookWithServer(ctx, cfg, ev, in, out, busy)
	}
	opt := sqlite.Options{BusyTimeout: busy}
	if ev == hook.UserPromptSubmit || ev == hook.SessionStart {
		// They mostly read, each page about once (see CachePages); the
		// events that archive keep the default, which their writes fill.
		opt.CachePages = readCachePages
	}
	opened, _ := os.Lstat(cfg.DB)
	st, err := sqlite.Open(ctx, cfg.DB, opt)
	if err == nil {
		var buf bytes.Buffer
		err = a.runHookEvent(ctx, cfg, st, ev, in, &buf)
		if !errors.Is(err, sqlite.ErrCorrupt) && !a.corrupt {
			// PreCompact's text is written even when its audit failed.
			if _, werr := out.Write(buf.Bytes()); err == nil {
				err = werr
			}
			return st, err
		}
		// Not closed: closing a damaged store makes SQLite checkpoint its
		// log and delete the log by name, which, once the file is moved
		// aside, may be a fresh store's. The process exits soon.
	}
	if !errors.Is(err, sqlite.ErrCorrupt) && !a.corrupt {
		return nil, fmt.Errorf("open store: %w", err)
	}
	// A damaged store: move it aside and archive into a fresh one, from
	// this session's transcript, so that nothing of it is lost; the other
	// sessions come back with 'carryover ingest --all'.
	a.log.Error("store is damaged", "db", cfg.DB, "err", err)
	moved, merr := moveAsideOnce(cfg.DB, opened)
	if merr != nil {
		return nil, fmt.Errorf("damaged store: %w", merr)
	}
	if moved != "" {
		a.log.Warn("damaged store moved aside; a fresh one takes its place", "moved", moved,
			"recover", "carryover ingest --all")
	}
	a.corrupt = false
	st, err = sqlite.Open(ctx, cfg.DB, opt)
	if err != nil {
		return nil, fmt.Errorf("open fresh store: %w", err)
	}
	defer st.Close()
	return nil, a.runHookEvent(ctx, cfg, st, ev, in, out)
}

// moveAsideOnce moves the damaged store at path aside unless another
// process did already: the file there is no longer the one this process
// opened (opened is nil when it did not exist then). It returns the new
// name, or "" when there was nothing to move.
func moveAsideOnce(path string, opened fs.FileInfo) (string, error) {
	now, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if opened != nil && !os.SameFile(opened, now) {
		return "", nil
	}
	return sqlite.MoveAside(path, time.Now())
}

// runHookEvent does the work of one event on an open store.
func (a *app) runHookEvent(ctx context.Context, cfg config, st carryover.Store, ev hook.Event, in hook.Input, out io.Writer) error {
	// A forgotten session gets nothing: no archiving, no injection, no audit
	// row that names it. Apply checks again, for a forget racing this hook.
	if gone, err := st.Forgotten(ctx, in.SessionID); err != nil {
		return fmt.Errorf("forgotten: %w", err)
	} else if gone {
		return carryover.ErrForgotten
	}
	switch ev {
	case hook.SessionStart:
		return a.onSessionStart(ctx, cfg, st, in, out)
	case hook.UserPromptSubmit:
		return a.onUserPrompt(ctx, cfg, st, in, out)
	case hook.PreCompact:
		return a.onPreCompact(ctx, cfg, st, in, out)
	default: // PostCompact, Stop, SessionEnd, PostToolUse: archive what is new.
		_, err := a.ingestHook(ctx, st, in)
		return err
	}
}

// validSessionID rejects ids that could not come from Claude Code and could
// be used to escape a directory.
func validSessionID(id string) error {
	if id == "" || len(id) > 200 || strings.ContainsAny(id, "/\\\x00") || strings.Contains(id, "..") {
		return fmt.Errorf("invalid session_id %q", id)
	}
	return nil
}

// validTranscriptPath rejects paths Claude Code would not send: relative
// (they would resolve against wherever the hook runs), with a NUL byte, or
// longer than any real one. An empty path is checked where it is needed.
func validTranscriptPath(p string) error {
	switch {
	case p == "":
		return nil
	case len(p) > 4096:
		return fmt.Errorf("transcript_path is %d bytes long", len(p))
	case strings.ContainsRune(p, 0):
		return errors.New("transcript_path contains a NUL byte")
	case !filepath.IsAbs(p):
		return fmt.Errorf("transcript_path %q is not absolute", p)
	}
	return nil
}

func (a *app) ingestHook(ctx context.Context, st carryover.Store, in hook.Input) (ingest.Report, error) {
	if in.TranscriptPath == "" {
		return ingest.Report{}, errors.New("no transcript_path in payload")
	}
	rep, err := ingest.File(ctx, st, in.TranscriptPath, ingest.Options{SessionID: in.SessionID, Project: in.Cwd, Redactor: a.redactor})
	if err != nil {
		return rep, fmt.Errorf("ingest %s: %w", in.TranscriptPath, err)
	}
	return rep, nil
}

// ingestLogged archives what is new and logs a failure: the restore or the
// instructions that follow are still worth giving from what is stored. It
// fails only when the session was forgotten meanwhile: then nothing follows.
func (a *app) ingestLogged(ctx context.Context, st carryover.Store, in hook.Input) (ingest.Report, error) {
	rep, err := a.ingestHook(ctx, st, in)
	if errors.Is(err, carryover.ErrForgotten) {
		return rep, err
	}
	if err != nil {
		a.log.Error("hook ingest", "session", in.SessionID, "err", err)
		a.corrupt = a.corrupt || errors.Is(err, sqlite.ErrCorrupt)
	}
	return rep, nil
}

func (a *app) onSessionStart(ctx context.Context, cfg config, st carryover.Store, in hook.Input, out io.Writer) error {
	if in.Source == "startup" && cfg.StartupBrief {
		blk, err := retrieve.StartupBrief(ctx, st, retrieve.BriefRequest{Project: in.Cwd, SessionID: in.SessionID})
		if err != nil {
			return fmt.Errorf("startup brief: %w", err)
		}
		return a.inject(ctx, st, hook.SessionStart, "SessionStart:startup", in, in.Cwd, 0, blk, out)
	}
	if in.Source != "compact" && in.Source != "resume" {
		return nil
	}
	// The compaction's boundary and summary are in the transcript by now.
	if _, err := a.ingestLogged(ctx, st, in); err != nil {
		return err
	}
	sess, err := st.Session(ctx, in.SessionID)
	if err != nil {
		return fmt.Errorf("session: %w", err)
	}
	window := sess.Windows
	if in.Source == "compact" && window == 0 {
		window = 1 // the boundary is not written yet: everything archived is before it
	}
	if window == 0 {
		return nil // a resume of a session that never compacted
	}
	if in.Source == "resume" {
		// The restore of this window is in the transcript already and is re-sent on resume.
		prev, err := st.Injections(ctx, in.SessionID, 50)
		if err != nil {
			return err
		}
		for _, p := range prev {
			if strings.HasPrefix(p.Event, "SessionStart") && p.Window == window {
				return nil
			}
		}
	}
	summary := ""
	if cs, err := st.Compactions(ctx, in.SessionID); err == nil {
		for _, c := range cs {
			if c.Window == window {
				summary = c.Summary
			}
		}
	}
	blk, err := retrieve.Restore(ctx, st, retrieve.RestoreRequest{
		SessionID: in.SessionID, Project: sess.Project, Window: window, Summary: summary, Budget: cfg.Budget,
	})
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	return a.inject(ctx, st, hook.SessionStart, "SessionStart:"+in.Source, in, sess.Project, window, blk, out)
}

func (a *app) onUserPrompt(ctx context.Context, cfg config, st carryover.Store, in hook.Input, out io.Writer) error {
	if !cfg.Recall {
		return nil
	}
	sess, err := st.Session(ctx, in.SessionID)
	if errors.Is(err, carryover.ErrNotFound) {
		// Nothing archived of this session yet (its first prompt, or the
		// first after /clear): the project's other sessions may still know.
		sess = carryover.Session{ID: in.SessionID, Project: in.Cwd}
	} else if err != nil {
		return fmt.Errorf("session: %w", err)
	}
	exclude := map[int64]bool{}
	prev, err := st.Injections(ctx, in.SessionID, 200)
	if err != nil {
		return err
	}
	for _, p := range prev {
		if p.Window == sess.Windows {
			for _, id := range p.ChunkIDs {
				exclude[id] = true
			}
		}
	}
	blk, err := retrieve.Recall(ctx, st, retrieve.RecallRequest{
		SessionID: in.SessionID, Project: sess.Project, Prompt: in.Prompt, Window: sess.Windows,
		Budget: cfg.RecallBudget, Exclude: exclude,
	})
	if err != nil {
		return fmt.Errorf("recall: %w", err)
	}
	return a.inject(ctx, st, hook.UserPromptSubmit, "UserPromptSubmit", in, sess.Project, sess.Windows, blk, out)
}

func (a *app) onPreCompact(ctx context.Context, cfg config, st carryover.Store, in hook.Input, out io.Writer) error {
	rep, err := a.ingestLogged(ctx, st, in)
	if err != nil {
		return err
	}
	text, err := retrieve.Instructions(ctx, st, in.SessionID, rep.Window)
	if err != nil {
		return fmt.Errorf("instructions: %w", err)
	}
	if cfg.CompactInstructions != "" {
		text = strings.TrimRight(text, "\n") + "\n\n" + cfg.CompactInstructions
	}
	text, _ = a.redact(text) // defence in depth: the store holds masked text already
	if _, err := io.WriteString(out, text+"\n"); err != nil {
		return err
	}
	_, err = st.RecordInjection(ctx, carryover.Injection{
		Time: time.Now(), SessionID: in.SessionID, Project: rep.Project, Event: "PreCompact:" + in.Trigger,
		Window: rep.Window, Chars: len(text), Tokens: carryover.TokenEstimate(text), Hash: hashText(text),
		Latency: time.Since(a.start),
	})
	return err
}

// inject writes a context block and records it in the audit log.
func (a *app) inject(ctx context.Context, st carryover.Store, ev hook.Event, event string, in hook.Input, project string, window int, blk retrieve.Block, out io.Writer) error {
	if blk.Text == "" {
		return nil
	}
	// Defence in depth: the store holds masked text already, but notes and
	// older archives may not.
	blk.Text, _ = a.redact(blk.Text)
	if err := hook.WriteContext(out, ev, blk.Text); err != nil {
		return err
	}
	_, err := st.RecordInjection(ctx, carryover.Injection{
		Time: time.Now(), SessionID: in.SessionID, Project: project, Event: event, Window: window,
		Chars: len(blk.Text), Tokens: carryover.TokenEstimate(blk.Text), ChunkIDs: blk.ChunkIDs, ItemIDs: blk.ItemIDs,
		Hash: hashText(blk.Text), Latency: time.Since(a.start),
	})
	if err != nil {
		// The block is still worth injecting; the audit row is lost.
		a.log.Error("record injection", "err", err)
		a.corrupt = a.corrupt || errors.Is(err, sqlite.ErrCorrupt)
	}
	return nil
}

func hashText(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}
