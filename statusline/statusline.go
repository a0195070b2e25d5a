// Package statusline is carryover's Claude Code status line: the context
// used, the turns archived and the last compaction. It runs after every
// turn, so its usual path reads a small state file per session and two
// stats of the store's files, and opens the store (read only) only when
// those changed. When the context left crosses 30 %, 15 % or 5 %, it
// archives what is new in the transcript (through the same Archiver as the
// hooks), so that the archive is current before an automatic compaction.
package statusline

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/internal/replace"
	"github.com/carryover-dev/carryover/internal/smallfile"
	"github.com/carryover-dev/carryover/redact"
	"github.com/carryover-dev/carryover/storeopen"
	"github.com/carryover-dev/carryover/termsafe"
)

// thresholds are the remaining-context percentages that trigger an
// ingest, highest first.
var thresholds = []int{30, 15, 5}

// rearm is how far the remaining context must rise above the last
// threshold fired (after a compaction) for the thresholds to fire again.
const rearm = 10

const (
	// MaxInput caps the payload read from stdin.
	MaxInput = 1 << 20
	maxWrap  = 64 << 10
	wrapWait = 3 * time.Second
	// stateAge: state files of sessions idle this long are removed.
	stateAge = 30 * 24 * time.Hour
)

// Config is what the status line needs of the configuration of a project.
type Config struct {
	DB      string
	Timeout time.Duration // bounds the archiving at a threshold (the hooks' deadline)
	// StateDir holds one small state file per session.
	StateDir string
	// Redactor masks secrets when archiving; nil means the built-in
	// detectors alone.
	Redactor *redact.Redactor
}

// Line renders the status line.
type Line struct {
	// Load returns the configuration for a project directory; an error
	// leaves carryover's part of the line to the context figure.
	Load func(projectDir string) (Config, error)
	// Log returns the log, opened on first use (the usual path writes
	// none); nil discards.
	Log func() *slog.Logger
}

// input is the part of Claude Code's statusLine payload used here.
type input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Workspace      struct {
		ProjectDir string `json:"project_dir"`
	} `json:"workspace"`
	ContextWindow struct {
		UsedPercentage      *float64 `json:"used_percentage"`
		RemainingPercentage *float64 `json:"remaining_percentage"`
	} `json:"context_window"`
}

// state is what the status line remembers of a session between runs.
type state struct {
	// Fired is the last threshold that ran an ingest in this context
	// window, 0 for none.
	Fired int `json:"fired,omitempty"`
	// Stamp identifies the store's content when the figures were read.
	Stamp          string    `json:"stamp,omitempty"`
	Archived       bool      `json:"archived,omitempty"`
	Turns          int       `json:"turns,omitempty"`
	Compactions    int       `json:"compactions,omitempty"`
	LastCompaction time.Time `json:"last_compaction,omitzero"`
	Trigger        string    `json:"trigger,omitempty"`
}

func (l *Line) logError(msg string, err error) {
	if l.Log != nil {
		l.Log().Error(msg, "err", err)
	}
}

// Render returns the line for a payload: the wrapped command's output
// (run with the same payload, when wrap is not ""), then carryover's part.
// It never fails; a part that cannot be computed is left out.
func (l *Line) Render(ctx context.Context, payload []byte, wrap string) string {
	wrapped := make(chan string, 1)
	if wrap != "" {
		go func() { wrapped <- l.runWrapped(ctx, wrap, payload) }()
	} else {
		wrapped <- ""
	}
	line := l.own(ctx, payload)
	if old := <-wrapped; old != "" {
		switch {
		case line == "":
			line = old
		case strings.Contains(old, "\n"):
			line = old + "\n" + line
		default:
			line = old + " | " + line
		}
	}
	return line
}

// runWrapped runs the wrapped status line command with the same stdin and
// returns its output without trailing newlines ("" when it fails).
func (l *Line) runWrapped(ctx context.Context, command string, stdin []byte) string {
	ctx, cancel := context.WithTimeout(ctx, wrapWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.Stdin = bytes.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout = &limitedBuffer{buf: &out, max: maxWrap}
	cmd.Stderr = io.Discard
	cmd.WaitDelay = 100 * time.Millisecond
	if err := cmd.Run(); err != nil {
		l.logError("statusline: wrapped command", err)
		if out.Len() == 0 {
			return ""
		}
	}
	return strings.TrimRight(out.String(), "\r\n")
}

// limitedBuffer keeps the first max bytes written and drops the rest.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// own computes carryover's part of the line, "" when the payload is
// unusable.
func (l *Line) own(ctx context.Context, data []byte) string {
	var in input
	if err := json.Unmarshal(data, &in); err != nil {
		l.logError("statusline: decode payload", err)
		return ""
	}
	var parts []string
	remaining := -1.0
	switch cw := in.ContextWindow; {
	case cw.RemainingPercentage != nil:
		remaining = *cw.RemainingPercentage
	case cw.UsedPercentage != nil:
		remaining = 100 - *cw.UsedPercentage
	}
	if remaining >= 0 {
		parts = append(parts, fmt.Sprintf("ctx %.0f%% used", 100-remaining))
	}
	if carryover.ValidSessionID(in.SessionID) != nil {
		return strings.Join(parts, " · ")
	}
	cfg, err := l.Load(cmp.Or(in.Workspace.ProjectDir, in.Cwd))
	if err == nil && !filepath.IsAbs(cfg.StateDir) {
		err = errors.New("no place for the status line's state: set HOME or XDG_STATE_HOME to an absolute path")
	}
	if err != nil {
		l.logError("statusline", err)
		return strings.Join(parts, " · ")
	}
	path := filepath.Join(cfg.StateDir, in.SessionID+".json")
	old := readState(path)
	st := old

	fire := 0
	if remaining >= 0 {
		fire, st.Fired = Crossing(st.Fired, remaining)
	}
	if fire > 0 {
		if err := l.archive(ctx, cfg, in, &st); err != nil {
			l.logError("statusline: ingest at threshold", err)
		}
		pruneStates(filepath.Dir(path))
	} else if stamp := storeStamp(cfg.DB); stamp != st.Stamp {
		if err := figures(ctx, cfg, in.SessionID, stamp, &st); err != nil {
			l.logError("statusline: read store", err)
		}
	}
	if st != old {
		if err := writeState(path, st); err != nil {
			l.logError("statusline: save state", err)
		}
	}

	if !st.Archived {
		parts = append(parts, "not archived yet")
	} else {
		turns := "turns"
		if st.Turns == 1 {
			turns = "turn"
		}
		parts = append(parts, fmt.Sprintf("%d %s archived", st.Turns, turns))
		if !st.LastCompaction.IsZero() {
			// The trigger is the transcript's: never raw on a terminal.
			parts = append(parts, fmt.Sprintf("compacted %s (%s)", Ago(time.Since(st.LastCompaction)), termsafe.Line(cmp.Or(st.Trigger, "?"))))
		}
	}
	if fire > 0 {
		parts = append(parts, fmt.Sprintf("archived at %d%% left", fire))
	}
	return strings.Join(parts, " · ")
}

// Crossing decides, from the last threshold fired and the context left,
// which threshold to act on now (0 for none) and what to remember. A jump
// past several thresholds acts once, on the lowest; a rise well above the
// last one (a compaction freed the context) rearms them all.
func Crossing(fired int, remaining float64) (fire, next int) {
	if fired > 0 && remaining >= float64(fired+rearm) {
		fired = 0
	}
	for i := len(thresholds) - 1; i >= 0; i-- {
		t := thresholds[i]
		if remaining <= float64(t) && (fired == 0 || t < fired) {
			return t, t
		}
	}
	return 0, fired
}

// archive archives what is new in the transcript and reads the figures
// from the same store, within the hooks' deadline.
func (l *Line) archive(ctx context.Context, cfg Config, in input, st *state) error {
	if in.TranscriptPath == "" {
		return errors.New("no transcript_path in payload")
	}
	timeout := cmp.Or(cfg.Timeout, 2*time.Second)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	s, err := storeopen.Local(ctx, cfg.DB, storeopen.LocalOptions{BusyTimeout: timeout / 2})
	if err != nil {
		return err
	}
	a := ingest.Archiver{Store: s, Redactor: cfg.Redactor}
	rep, err := a.File(ctx, in.TranscriptPath, ingest.Options{SessionID: in.SessionID, Cwd: in.Cwd})
	if err == nil {
		if l.Log != nil {
			l.Log().Info("statusline ingest", "session", in.SessionID, "fired", st.Fired, "chunks", rep.Chunks)
		}
		err = readFigures(ctx, s, in.SessionID, "", st)
	} else {
		err = fmt.Errorf("ingest %s: %w", in.TranscriptPath, err)
	}
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	// Closing may fold the write-ahead log back: stamp what stays. After a
	// failure, the next run reads the figures again.
	st.Stamp = ""
	if err == nil {
		st.Stamp = storeStamp(cfg.DB)
	}
	return err
}

// figures reads the session's figures from the store, read only.
func figures(ctx context.Context, cfg Config, sessionID, stamp string, st *state) error {
	st.Stamp = stamp
	if stamp == "" {
		st.Archived = false // no store yet
		return nil
	}
	s, err := storeopen.Local(ctx, cfg.DB, storeopen.LocalOptions{ReadOnly: true, BusyTimeout: 200 * time.Millisecond})
	if err != nil {
		return err
	}
	defer s.Close()
	return readFigures(ctx, s, sessionID, stamp, st)
}

func readFigures(ctx context.Context, s carryover.Store, sessionID, stamp string, st *state) error {
	sess, err := s.Session(ctx, sessionID)
	if errors.Is(err, carryover.ErrNotFound) {
		st.Stamp, st.Archived = stamp, false
		return nil
	}
	if err != nil {
		return err
	}
	st.Stamp, st.Archived, st.Turns, st.Compactions = stamp, true, sess.Turns, sess.Windows
	st.LastCompaction, st.Trigger = time.Time{}, ""
	if sess.Windows > 0 {
		cs, err := s.Compactions(ctx, sessionID)
		if err != nil {
			return err
		}
		if len(cs) > 0 {
			st.LastCompaction, st.Trigger = cs[len(cs)-1].Time.UTC(), cs[len(cs)-1].Trigger
		}
	}
	return nil
}

// storeStamp identifies the store's content by the size and modification
// time of the database and its write-ahead log; "" when there is no store.
func storeStamp(db string) string {
	fi, err := os.Stat(db)
	if err != nil {
		return ""
	}
	stamp := fmt.Sprintf("%d.%d", fi.Size(), fi.ModTime().UnixNano())
	if wal, err := os.Stat(db + "-wal"); err == nil {
		stamp += fmt.Sprintf("/%d.%d", wal.Size(), wal.ModTime().UnixNano())
	}
	return stamp
}

func readState(path string) state {
	var st state
	// A state is some 200 bytes: whatever the file has become (a huge or
	// endless one, a FIFO), the status line, which Claude Code runs every
	// few seconds, reads no more than this, and never waits.
	data, truncated, err := smallfile.Read(path, maxState)
	if err != nil || truncated || json.Unmarshal(data, &st) != nil {
		return state{}
	}
	return st
}

// maxState bounds a status line state file read back, in bytes.
const maxState = 64 << 10

// writeState replaces the state file atomically, so a concurrent reader
// never sees half of it.
func writeState(path string, st state) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".statusline-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = replace.File(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// pruneStates removes the state files of sessions idle for long.
func pruneStates(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > stateAge {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// Ago is a short, rounded age: "just now", "5m ago", "3h ago", "2d ago".
func Ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}
