package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/projectdir"
)

// cmdNote stores a note (kind "state" for cmdState) with a session, as the
// MCP tools remember and state do, for use from a shell.
func (a *app) cmdNote(ctx context.Context, args []string, state bool) error {
	name := "note"
	if state {
		name = "state"
	}
	fl := a.newFlags(name)
	kind := "state"
	if !state {
		fl.StringVar(&kind, "kind", "note", "decision, constraint or note")
	}
	session := fl.String("session", "", "session id or unique prefix (default: $CLAUDE_CODE_SESSION_ID, else the project's latest session)")
	project := fl.String("project", "", "project: its directory or any path inside it (default: $CLAUDE_PROJECT_DIR, else the current directory)")
	words, err := parseInterspersed(fl, args)
	if err != nil {
		return err
	}
	switch kind {
	case "decision", "constraint", "note", "state":
	default:
		return usageErr{fmt.Sprintf("%s: --kind %q: want decision, constraint or note", name, kind)}
	}
	text := strings.Join(words, " ")
	if text == "-" {
		data, err := io.ReadAll(io.LimitReader(a.stdin, maxNoteBytes+1))
		if err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
		text = string(data)
	}
	text = strings.TrimSpace(text)
	if carryover.Blank(text) {
		return usageErr{fmt.Sprintf("%s: the text is empty or only control characters: give the text (or - to read it from stdin)", name)}
	}
	if len(text) > maxNoteBytes {
		return usageErr{fmt.Sprintf("%s: the text is longer than %d characters; keep it short (a restore shows 200 characters of a note, 600 of the state)", name, maxNoteBytes)}
	}
	dir, err := projectDir(*project, a.getenv)
	if err != nil {
		return err
	}
	cfg, err := a.loadConfig(dir)
	if err != nil {
		return err
	}
	text, masked := a.redact(text)
	st, err := a.openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	// The project the directory belongs to: archived already, or as a
	// session started there would be archived.
	proj, _, err := projectOrRoot(ctx, st, dir)
	if err != nil {
		return err
	}
	sess, err := a.noteSession(ctx, st, *session, proj, dir)
	if err != nil {
		return err
	}
	dir = proj
	if sess.Project != "" {
		dir = sess.Project
	}
	id, err := st.AddNote(ctx, carryover.Note{SessionID: sess.ID, Project: dir, Kind: kind, Text: text})
	if err != nil {
		return fmt.Errorf("store note: %w", err)
	}
	if n := countAll(masked); n > 0 {
		fmt.Fprintf(a.stdout, "masked %d secret(s) in the text before storing it (%s)\n", n, kindList(masked))
	}
	if state {
		fmt.Fprintf(a.stdout, "state saved for session %s (replacing the previous one): every restore after a compaction shows it first\n", carryover.ShortID(sess.ID))
	} else {
		fmt.Fprintf(a.stdout, "remembered %s #%d for session %s: every later restore after a compaction shows it\n", kind, id, carryover.ShortID(sess.ID))
	}
	a.log.Info(name, "session", sess.ID, "kind", kind, "chars", len(text))
	return nil
}

// maxNoteBytes bounds a note's text.
const maxNoteBytes = 2000

// noteSession returns the session a note belongs to: --session (archived),
// else $CLAUDE_CODE_SESSION_ID (maybe not archived yet), else the
// project's most recently updated session.
func (a *app) noteSession(ctx context.Context, st carryover.Store, flagValue, project, dir string) (carryover.Session, error) {
	if flagValue != "" {
		return findSession(ctx, st, flagValue)
	}
	if id := strings.TrimSpace(a.getenv("CLAUDE_CODE_SESSION_ID")); id != "" {
		if err := carryover.ValidSessionID(id); err != nil {
			return carryover.Session{}, fmt.Errorf("CLAUDE_CODE_SESSION_ID: %w", err)
		}
		s, err := st.Session(ctx, id)
		if errors.Is(err, carryover.ErrNotFound) {
			return carryover.Session{ID: id}, nil
		}
		return s, err
	}
	ss, err := st.Sessions(ctx, carryover.SessionFilter{Project: project, TopLevel: true, Limit: 1})
	if err != nil {
		return carryover.Session{}, err
	}
	if len(ss) == 0 {
		from := ""
		if dir != project {
			from = " (from " + dir + ")"
		}
		return carryover.Session{}, hintErr{fmt.Errorf("no session to attach the note to: no archived sessions in project %s%s", project, from),
			"run it inside Claude Code (which sets CLAUDE_CODE_SESSION_ID), pass --session ID, or archive the project's sessions with 'carryover ingest'"}
	}
	return ss[0], nil
}

// projectDir is the project a CLI call is about: the flag, else
// $CLAUDE_PROJECT_DIR, else the current directory; absolute and clean.
func projectDir(flagValue string, getenv func(string) string) (string, error) {
	dir := flagValue
	if dir == "" {
		dir = getenv("CLAUDE_PROJECT_DIR")
	}
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("current directory: %w", err)
		}
		dir = wd
	}
	abs, err := projectdir.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("project %s: %w", dir, err)
	}
	return abs, nil
}
