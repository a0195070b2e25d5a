package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/projectdir"
	"github.com/carryover-dev/carryover/retrieve"
)

const sessionsDescription = `List past Claude Code sessions that carryover archived for this project (or for another project directory, or "all"), most recent first: id, title, dates, turns, compactions, archived chunks and the subagents each ran (the timeline of a session lists them). Use it to find an earlier session to search (scope) or read with timeline and get.`

type sessionsIn struct {
	Project string `json:"project,omitempty" jsonschema:"project directory, or any directory inside it (default: the current project), or all for every project"`
	Limit   int    `json:"limit,omitempty" jsonschema:"at most this many sessions, 1 to 100 (default 10)"`
}

const (
	defaultSessionsLimit = 10
	maxSessionsLimit     = 100
)

func (s *server) sessions(ctx context.Context, in sessionsIn) (string, error) {
	limit := in.Limit
	if limit == 0 {
		limit = defaultSessionsLimit
	}
	if limit < 1 || limit > maxSessionsLimit {
		return "", fmt.Errorf("limit %d is out of range: give 1 to %d (default %d)", in.Limit, maxSessionsLimit, defaultSessionsLimit)
	}
	project := strings.TrimSpace(in.Project)
	switch {
	case project == "":
		project = s.opt.Project
	case strings.EqualFold(project, "all"):
		project = ""
	case !filepath.IsAbs(project):
		return "", fmt.Errorf("project %s: give an absolute directory, or all", echo(in.Project))
	default:
		project = filepath.Clean(project)
		// A directory inside a project (a worktree, a subdirectory) names it.
		p, ok, err := retrieve.FindProject(ctx, s.st, project, projectdir.Root(project))
		if err != nil {
			return "", err
		}
		if ok {
			project = p
		}
	}
	// Subagents are listed by their session's timeline.
	ss, err := s.st.Sessions(ctx, carryover.SessionFilter{Project: project, TopLevel: true, Limit: limit + 1})
	if err != nil {
		return "", fmt.Errorf("sessions: %w", err)
	}
	where := "all projects"
	if project != "" {
		where = oneLine(project, maxEcho)
	}
	if len(ss) == 0 {
		return "No archived sessions in " + where + ".", nil
	}
	more := len(ss) > limit
	ss = ss[:min(len(ss), limit)]
	var b strings.Builder
	fmt.Fprintf(&b, "Archived sessions in %s, most recently updated first", where)
	if more {
		fmt.Fprintf(&b, " (the first %d; raise limit for more)", limit)
	}
	b.WriteString(":\n")
	for i, sess := range ss {
		var e strings.Builder
		fmt.Fprintf(&e, "\n%s", sess.ID)
		if sess.ID == s.opt.SessionID {
			e.WriteString(" (current session)")
		}
		fmt.Fprintf(&e, "\n  %q\n  %s to %s · %s · %s · %s",
			oneLine(sess.Title, 120), stamp(sess.Started), stamp(sess.Updated),
			count(sess.Turns, "turn"), count(sess.Windows, "compaction"), count(sess.Chunks, "chunk"))
		if sess.Subagents > 0 {
			fmt.Fprintf(&e, " · %s", count(sess.Subagents, "subagent"))
		}
		e.WriteString("\n")
		if sess.Cwd != "" && sess.Cwd != sess.Project || sess.Branch != "" {
			fmt.Fprintf(&e, "  %s\n", ranWhere(sess))
		}
		if project == "" {
			fmt.Fprintf(&e, "  project %s\n", sess.Project)
		}
		if b.Len()+e.Len() > maxList-200 {
			fmt.Fprintf(&b, "\n[… %d more sessions not shown to stay under %d characters: lower limit or name a project.]\n", len(ss)-i, maxList)
			break
		}
		b.WriteString(e.String())
	}
	return b.String(), nil
}

// ranWhere says in which directory and on which branch a session ran.
func ranWhere(sess carryover.Session) string {
	var parts []string
	if sess.Cwd != "" && sess.Cwd != sess.Project {
		parts = append(parts, "ran in "+oneLine(sess.Cwd, maxEcho))
	}
	if sess.Branch != "" {
		parts = append(parts, "branch "+oneLine(sess.Branch, maxEcho))
	}
	return strings.Join(parts, " · ")
}

const rememberDescription = `Keep a short fact that must survive every compaction: a decision and its reason, a constraint the user set, or a note. It is shown in the restore block after every later compaction of this session, and in restores of later sessions of this project.
Use it when the user states a lasting requirement ("never…", "always…") or when you settle a decision you must not lose. One or two sentences; a restore shows the first 200 characters. For the task in progress and the next step, use state instead.`

type rememberIn struct {
	Text string `json:"text" jsonschema:"the fact, self-contained: name the files, commands and values it is about"`
	Kind string `json:"kind,omitempty" jsonschema:"decision, constraint or note (default note)"`
}

// Note text limits, in bytes.
const (
	maxNoteText = 2000
	// shownNote and shownState are what a restore shows of a note and of
	// the state (retrieve's line and block caps).
	shownNote  = 200
	shownState = 600
)

func (s *server) remember(ctx context.Context, in rememberIn) (string, error) {
	kind := strings.ToLower(strings.TrimSpace(in.Kind))
	switch kind {
	case "":
		kind = "note"
	case "decision", "constraint", "note":
	case "state":
		return "", errors.New(`kind "state": use the state tool, which replaces the session's current state`)
	default:
		return "", fmt.Errorf("kind %s: want decision, constraint or note", echo(in.Kind))
	}
	id, sessionID, masked, err := s.addNote(ctx, kind, in.Text)
	if err != nil {
		return "", err
	}
	msg := fmt.Sprintf("Remembered %s #%d for session %s. It will appear in every later restore after a compaction of this session, and in restores of later sessions of this project.", kind, id, carryover.ShortID(sessionID)) + maskedNotice(masked)
	if n := len(strings.TrimSpace(in.Text)); n > shownNote {
		msg += fmt.Sprintf(" It is %d characters long: restores show the first %d.", n, shownNote)
	}
	return msg, nil
}

const stateDescription = `Replace this session's "Current state" note: the active task, the next step and any blockers, in a few lines. Every restore after a compaction shows it first, so work resumes exactly where it stopped.
Update it when the task or the next step changes, and before long operations that may trigger a compaction. Write it for your future self with no other context: name files, commands and the exact next action. Up to 600 characters are shown.`

type stateIn struct {
	Text string `json:"text" jsonschema:"the current state: active task, next step, blockers"`
}

func (s *server) state(ctx context.Context, in stateIn) (string, error) {
	_, sessionID, masked, err := s.addNote(ctx, "state", in.Text)
	if err != nil {
		return "", err
	}
	msg := fmt.Sprintf("Current state saved for session %s, replacing the previous one. Every restore after a compaction shows it first.", carryover.ShortID(sessionID)) + maskedNotice(masked)
	if n := len(strings.TrimSpace(in.Text)); n > shownState {
		msg += fmt.Sprintf(" It is %d characters long: restores show the first %d.", n, shownState)
	}
	return msg, nil
}

// addNote stores a note, its secrets masked, with the current session and
// returns its id, the session's and the number of secrets masked.
func (s *server) addNote(ctx context.Context, kind, text string) (int64, string, int, error) {
	text = strings.TrimSpace(text)
	if carryover.Blank(text) {
		return 0, "", 0, errors.New("text is empty or only control characters")
	}
	if len(text) > maxNoteText {
		return 0, "", 0, fmt.Errorf("text is %d characters: keep it under %d (a restore shows %d of a note, %d of the state)", len(text), maxNoteText, shownNote, shownState)
	}
	sessionID, err := s.currentSession(ctx)
	if err != nil {
		return 0, "", 0, fmt.Errorf("cannot store a note: %w", err)
	}
	text, counts := s.opt.Redactor.Redact(text)
	masked := 0
	for _, n := range counts {
		masked += n
	}
	project := s.opt.Project
	if sess, err := s.st.Session(ctx, sessionID); err == nil && sess.Project != "" {
		project = sess.Project
	}
	id, err := s.st.AddNote(ctx, carryover.Note{SessionID: sessionID, Project: project, Kind: kind, Text: text})
	if err != nil {
		return 0, "", 0, fmt.Errorf("store note: %w", err)
	}
	return id, sessionID, masked, nil
}

// maskedNotice tells the model that secrets were masked in its note.
func maskedNotice(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" %d secret(s) in the text were masked before storing it: carryover never keeps secrets.", n)
}
