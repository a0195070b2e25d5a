package hook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/projectdir"
	"github.com/carryover-dev/carryover/redact"
	"github.com/carryover-dev/carryover/retrieve"
)

// Config is what the hooks need of carryover's configuration.
type Config struct {
	// DB is the local SQLite store; with DatabaseURL set, the spool used
	// while the server cannot be reached.
	DB          string
	DatabaseURL string
	Owner, Team string // identity and team of rows written to the server
	// ConnectTimeout bounds the connection to the server (default 300 ms):
	// past it the local store serves the event.
	ConnectTimeout time.Duration

	Budget       int  // restore budget in characters
	RecallBudget int  // UserPromptSubmit recall budget in characters
	Recall       bool // inject recall hits on UserPromptSubmit
	StartupBrief bool // SessionStart(startup): a brief of the project's last session
	// CompactInstructions is added to what PreCompact gives the summariser.
	CompactInstructions string

	Timeout           time.Duration // deadline of every event but SessionEnd
	SessionEndTimeout time.Duration

	// RecallThresholds replaces recall's thresholds where its fields are
	// > 0; zero means the defaults. Only benchmarks set it: `bench recall`
	// sweeps the thresholds through this hook.
	RecallThresholds RecallThresholds
	// RestoreShares replaces the restore's budget shares when not zero
	// (benchmarks sweep them; users do not set them).
	RestoreShares retrieve.RestoreShares
	// ToolRecall replaces the thresholds of failure and file recall where
	// its fields are > 0 (`bench jit` sweeps them; users do not set them).
	ToolRecall ToolRecallThresholds

	// PostToolUseArchive makes PostToolUse archive what is new after every
	// tool call (install --post-tool-use, which runs the hook for every
	// tool with --archive). Off, PostToolUse only recalls.
	PostToolUseArchive bool
}

// ToolRecallThresholds is a setting of the tool hooks' thresholds: see
// retrieve.FailureMinScore and retrieve.FileRecallMinNovel.
type ToolRecallThresholds struct {
	FailureMinScore float64
	FileMinNovel    int
}

// RecallThresholds is a setting of recall's thresholds: see
// retrieve.RecallMinScore and retrieve.RecallMinCoverage.
type RecallThresholds struct {
	MinScore, MinCoverage float64
}

// Handler runs Claude Code's hook events: each one reads its payload,
// archives what is new in the transcript, and writes what Claude Code
// expects on stdout (instructions for the summariser, a context block, or
// nothing).
type Handler struct {
	Config Config
	// Redactor masks secrets; nil means the built-in detectors alone.
	Redactor *redact.Redactor
	Log      *slog.Logger // nil discards
	// Start is when the process started: latencies are whole-process,
	// as Claude Code waits for them. Zero means when Run is called.
	Start time.Time
	// OneShot says that the process runs this one event and exits
	// (carryover hook): before archiving much it prepares its heap
	// (prepareHeap), which would waste a long-lived process's memory.
	OneShot bool
}

// Result says how one run ended, for the log, stats and tests.
type Result struct {
	Event   string // the event as recorded: SessionStart:compact, PreCompact:auto, ...
	Outcome string // ok | noop | error | timeout | panic | forgotten
	Output  int    // bytes written to stdout
	Err     error
	Latency time.Duration
}

// Run handles one event. Whatever happens it writes to stdout either
// nothing or one complete, valid output (plain text for PreCompact, one
// JSON object otherwise): the caller exits 0, because exit 2 would block a
// compaction and anything else on stdout is pasted into the model's
// context. Failures are logged and reported in the Result, and every run
// is recorded for stats but one of a forgotten session and one of a tool
// hook (PostToolUse, PostToolUseFailure) that had nothing to do.
func (h *Handler) Run(ctx context.Context, ev Event, stdin io.Reader, stdout io.Writer) Result {
	if h.Start.IsZero() {
		h.Start = time.Now()
	}
	timeout := h.Config.Timeout
	if ev == SessionEnd {
		timeout = h.Config.SessionEndTimeout
	}
	if timeout <= 0 {
		timeout = 2 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	type done struct {
		out      []byte
		st       carryover.Store // still open, to record the run on; nil when closed
		project  string          // the session's project, when the run read it
		err      error
		panicked bool
		idle     bool // nothing to do: the store was not opened
	}
	// The payload is kept to say which session the run belongs to, even
	// when the worker is still reading it at the deadline.
	payload := &captureReader{r: stdin}
	ch := make(chan done, 1)
	go func() {
		growStack(1)
		// A fault reading the store's memory map (an I/O error) panics,
		// recovered below, rather than kill the process.
		debug.SetPanicOnFault(true)
		defer func() {
			if r := recover(); r != nil {
				ch <- done{err: fmt.Errorf("panic: %v\n%s", r, debug.Stack()), panicked: true}
			}
		}()
		var out bytes.Buffer
		var project string
		st, err := h.serve(ctx, ev, payload, &out, &project)
		ch <- done{out: out.Bytes(), st: st, project: project, err: err, idle: errors.Is(err, errNoWork)}
	}()
	res := Result{Event: string(ev)}
	select {
	case d := <-ch:
		if d.idle {
			d.err = nil
			if ev.perToolCall() {
				// The usual run of a hook that fires for every tool call:
				// neither logged nor recorded, which would cost more than
				// the run.
				res.Outcome, res.Latency = "noop", time.Since(h.Start)
				return res
			}
		}
		// Decoded again from the copy: its fields stay empty when it is
		// not valid.
		in, _ := Decode(bytes.NewReader(payload.bytes()))
		res.Event = recordedEvent(ev, in)
		res.Latency, res.Err = time.Since(h.Start), d.err
		if errors.Is(d.err, carryover.ErrForgotten) {
			// Not even the run is recorded: its row would name the session.
			h.log().Info("hook: the session was forgotten: nothing archived or injected", "event", ev, "ms", res.Latency.Milliseconds())
			if d.st != nil {
				d.st.Close()
			}
			res.Outcome, res.Err = "forgotten", nil
			return res
		}
		switch {
		case d.panicked:
			res.Outcome = "panic"
		case d.err != nil:
			res.Outcome = "error"
		case len(d.out) == 0:
			res.Outcome = "noop"
		default:
			res.Outcome = "ok"
		}
		// Only a complete, valid output is ever written; PreCompact's
		// instructions are still worth giving when their audit failed.
		if len(d.out) > 0 && (d.err == nil || ev == PreCompact && !d.panicked) {
			if _, err := stdout.Write(d.out); err == nil {
				res.Output = len(d.out)
			}
		}
		if d.err != nil {
			h.log().Error("hook failed", "event", ev, "ms", res.Latency.Milliseconds(), "err", d.err)
		} else {
			h.log().Info("hook", "event", ev, "ms", res.Latency.Milliseconds(), "out", res.Output)
		}
		h.record(ctx, in, res, d.st, d.project)
	case <-ctx.Done():
		// The worker may still hold a write transaction; the process exits
		// soon, which rolls it back, and committed batches stay.
		in, _ := Decode(bytes.NewReader(payload.bytes()))
		res.Event, res.Outcome, res.Err = recordedEvent(ev, in), "timeout", ctx.Err()
		res.Latency = time.Since(h.Start)
		h.log().Error("hook deadline exceeded", "event", ev, "timeout", timeout)
		h.record(ctx, in, res, nil, "")
	}
	return res
}

// recordedEvent is the event's name in stats: with its source or trigger.
func recordedEvent(ev Event, in Input) string {
	switch {
	case ev == SessionStart && in.Source != "":
		return string(ev) + ":" + in.Source
	case (ev == PreCompact || ev == PostCompact) && in.Trigger != "":
		return string(ev) + ":" + in.Trigger
	}
	return string(ev)
}

func (h *Handler) log() *slog.Logger {
	if h.Log == nil {
		h.Log = slog.New(slog.DiscardHandler)
	}
	return h.Log
}

// redact masks secrets with the configured redactor.
func (h *Handler) redact(s string) string {
	if h.Redactor == nil {
		h.Redactor = redact.New(redact.Options{})
	}
	out, _ := h.Redactor.Redact(s)
	return out
}

// record stores one run for stats, after the output is written, on st,
// the store the run used, when it is still open (and closes it), or else
// on the local store opened again. project is the session's project when
// the run read it ("" to read it here). It is best effort and bounded: it waits
// on a busy store for the rest of the deadline, at most recordMax and at
// least recordMin (a run that timed out is still worth counting), well
// inside the timeouts install gives Claude Code.
func (h *Handler) record(ctx context.Context, in Input, res Result, st carryover.Store, project string) {
	const recordMin, recordMax = 100 * time.Millisecond, 500 * time.Millisecond
	budget := recordMax
	if dl, ok := ctx.Deadline(); ok {
		budget = min(max(time.Until(dl), recordMin), recordMax)
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), budget)
	defer cancel()
	// The run's store may read through a memory map: a fault on it (an
	// I/O error) loses the record, not the process's exit status.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			h.log().Error("record hook run: panic", "panic", r)
		}
	}()
	if carryover.ValidSessionID(in.SessionID) != nil {
		in.SessionID = ""
	}
	if st == nil {
		local, err := openLocal(rctx, h.Config.DB, budget, false)
		if err != nil {
			h.log().Error("record hook run: open store", "err", err)
			return
		}
		st = local
	}
	defer st.Close()
	// The session's project, which a cd does not change.
	if project == "" && in.SessionID != "" {
		if s, err := st.Session(rctx, in.SessionID); err == nil {
			project = s.Project
		}
	}
	if project == "" {
		project = projectdir.Root(in.Cwd)
	}
	err := st.RecordHookRun(rctx, carryover.HookRun{Time: h.Start, SessionID: in.SessionID, Project: project,
		Event: res.Event, Latency: res.Latency, Outcome: res.Outcome, Chars: res.Output})
	if err != nil {
		h.log().Error("record hook run", "err", err)
	}
}

// captureReader keeps a copy of what is read through it, safe to read from
// another goroutine (a run that timed out may still be reading).
type captureReader struct {
	r   io.Reader
	mu  sync.Mutex
	buf []byte
}

func (c *captureReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.mu.Lock()
	if len(c.buf)+n <= MaxInput {
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

// growStack grows the calling goroutine's stack at once, while it holds a
// single frame: a stack that grows under a deep call chain (SQLite's) is
// copied at every doubling, and each copy walks every frame's tables,
// paging them in. (The indexes only keep the array from being optimised
// away.)
//
//go:noinline
func growStack(i int) byte {
	var buf [32 << 10]byte
	buf[i%len(buf)] = byte(i)
	return buf[(i*7)%len(buf)]
}
