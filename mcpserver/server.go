// Package mcpserver is carryover's MCP server: tools that let Claude search
// and read its own archived past (search, get, timeline, sessions) and keep
// what must survive every compaction (remember, state).
//
// Results are plain text only. Claude Code hands a tool's structured content,
// when there is any, to the model instead of its text, and the text is what
// is written for the model to read.
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/redact"
	"github.com/carryover-dev/carryover/retrieve"
	"github.com/carryover-dev/carryover/termsafe"
)

// Default caps of the characters one tool result may hold.
const (
	DefaultSearchBudgetMax = 12000
	DefaultGetBudgetMax    = 30000
)

// Options configure a server.
type Options struct {
	// Project is the project root directory the tools are scoped to by
	// default ("" for all projects).
	Project string
	// SessionID is the current session when known. When "", the project's
	// most recently updated session is used.
	SessionID string
	Version   string
	// SearchBudgetMax and GetBudgetMax cap the budget argument of search
	// and of get; 0 means DefaultSearchBudgetMax and DefaultGetBudgetMax.
	SearchBudgetMax int
	GetBudgetMax    int
	// Logger receives a line per tool call; nil discards.
	Logger *slog.Logger
	// Redactor masks secrets in notes before they are stored and in every
	// tool result; nil means the built-in detectors.
	Redactor *redact.Redactor
}

// instructions are shown to the model with the server's tools.
const instructions = `carryover archives every step of this project's Claude Code sessions (prompts, commands, tool results, edits, errors) before each compaction. After a compaction, search it for exact details the summary dropped instead of guessing or redoing work. Keep the session's current state with "state" and lasting decisions or constraints with "remember": every restore after a compaction shows them.`

// server holds what the tool handlers share.
type server struct {
	st  carryover.Store
	opt Options
	log *slog.Logger
}

// New returns carryover's MCP server over st. Serve it on a stream pair
// such as stdin and stdout.
func New(st carryover.Store, opt Options) *Server {
	if opt.SearchBudgetMax <= 0 {
		opt.SearchBudgetMax = DefaultSearchBudgetMax
	}
	if opt.GetBudgetMax <= 0 {
		opt.GetBudgetMax = DefaultGetBudgetMax
	}
	if opt.Project != "" {
		opt.Project = filepath.Clean(opt.Project)
	}
	if opt.Version == "" {
		opt.Version = "dev"
	}
	if opt.Redactor == nil {
		opt.Redactor = redact.New(redact.Options{})
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &server{st: st, opt: opt, log: log}
	srv := &Server{s: s}
	addTool(srv, "search", searchDescription, readOnly("Search the archive"), s.search)
	addTool(srv, "get", getDescription, readOnly("Read archived text"), s.get)
	addTool(srv, "timeline", timelineDescription, readOnly("Session timeline"), s.timeline)
	addTool(srv, "sessions", sessionsDescription, readOnly("Archived sessions"), s.sessions)
	addTool(srv, "remember", rememberDescription, annotations{Title: "Remember across compactions", DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}, s.remember)
	addTool(srv, "state", stateDescription, annotations{Title: "Set the current state", DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}, s.state)
	return srv
}

func readOnly(title string) annotations {
	return annotations{Title: title, ReadOnlyHint: true, OpenWorldHint: ptr(false)}
}

func ptr[T any](v T) *T { return &v }

// addTool registers a handler that returns text. Its arguments are decoded
// into In, whose fields (json and jsonschema tags) give the input schema;
// an error becomes a tool error result (isError) that the model reads.
func addTool[In any](srv *Server, name, desc string, ann annotations, h func(context.Context, In) (string, error)) {
	srv.tools = append(srv.tools, tool{
		Name:        name,
		Description: desc,
		InputSchema: schemaOf(reflect.TypeFor[In]()),
		Annotations: ann,
		call: func(ctx context.Context, args json.RawMessage) (string, error) {
			var in In
			if len(args) > 0 && string(args) != "null" {
				dec := json.NewDecoder(bytes.NewReader(args))
				dec.DisallowUnknownFields()
				if err := dec.Decode(&in); err != nil {
					return "", fmt.Errorf("invalid arguments for %s: %v", name, err)
				}
			}
			start := time.Now()
			text, err := h(ctx, in)
			if err != nil {
				srv.s.log.Info("mcp tool", "tool", name, "ms", time.Since(start).Milliseconds(), "err", err)
				// The model reads the error like a result: masked, and
				// bounded (an error from another package may quote an
				// argument whole).
				msg, _ := srv.s.opt.Redactor.Redact(err.Error())
				return "", errors.New(oneLine(msg, maxError))
			}
			// Defence in depth: the archive holds masked text already, but
			// an archive written before masking may not.
			text, _ = srv.s.opt.Redactor.Redact(text)
			text = terminalSafe(text)
			srv.s.log.Info("mcp tool", "tool", name, "ms", time.Since(start).Milliseconds(), "chars", len(text))
			return text, nil
		},
	})
}

// maxError caps the text of a tool error.
const maxError = 1000

// errNoSession is returned when a tool needs the current session and none
// is known.
var errNoSession = errors.New("no current session: none was given to the server and nothing is archived for this project yet")

// currentSession returns the current session's id: the configured one, else
// the project's most recently updated session.
func (s *server) currentSession(ctx context.Context) (string, error) {
	if s.opt.SessionID != "" {
		return s.opt.SessionID, nil
	}
	ss, err := s.st.Sessions(ctx, carryover.SessionFilter{Project: s.opt.Project, TopLevel: true, Limit: 1})
	if err != nil {
		return "", fmt.Errorf("sessions: %w", err)
	}
	if len(ss) == 0 {
		return "", errNoSession
	}
	return ss[0].ID, nil
}

// resolveSession returns the archived session named by id (a full id, a
// unique prefix, which names a session rather than its subagents, or
// SESSION/agent-ID for a subagent), or the current one when id is "".
func (s *server) resolveSession(ctx context.Context, id string) (carryover.Session, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		cur, err := s.currentSession(ctx)
		if err != nil {
			return carryover.Session{}, err
		}
		sess, err := s.st.Session(ctx, cur)
		if errors.Is(err, carryover.ErrNotFound) {
			return carryover.Session{}, fmt.Errorf("the current session %s has nothing archived yet (it is archived when a turn ends and before a compaction); name another session, or see the sessions tool", cur)
		}
		return sess, err
	}
	sess, err := retrieve.FindSession(ctx, s.st, id)
	var amb *carryover.AmbiguousError
	switch {
	case errors.Is(err, carryover.ErrNotFound) && strings.Contains(id, "/"):
		return sess, fmt.Errorf("no archived session %s: a subagent is SESSION/agent-ID as the session's timeline lists them", echo(id))
	case errors.Is(err, carryover.ErrNotFound):
		return sess, fmt.Errorf("no archived session %s; the sessions tool lists them", echo(id))
	case errors.As(err, &amb):
		return sess, fmt.Errorf("session prefix %s matches %s; give more of the id", echo(id), count(len(amb.Matches), "session"))
	}
	return sess, err
}

// checkBudget applies a budget argument's default and range.
func checkBudget(budget, def, lo, hi int) (int, error) {
	if budget == 0 {
		return def, nil
	}
	if budget < lo || budget > hi {
		return 0, fmt.Errorf("budget %d is out of range: give %d to %d characters (default %d)", budget, lo, hi, def)
	}
	return budget, nil
}

// maxEcho caps an argument quoted back in a result or an error: a query can
// be any length, and the model needs only enough of it to recognise it.
const maxEcho = 200

// echo quotes an argument for a result: on one line, at most maxEcho runes,
// what is not printable escaped.
func echo(s string) string {
	return strconv.Quote(oneLine(s, maxEcho))
}

// oneLine collapses white space and control characters into single spaces
// and shortens s to at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// count is n and word, plural unless n is 1: "1 chunk", "3 chunks".
func count(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// stamp formats a time for provenance, in UTC.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "unknown time"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

// capText cuts s to at most n bytes, at a line boundary when one is near,
// and ends it with "[… cut: more]".
func capText(s string, n int, more string) string {
	if len(s) <= n {
		return s
	}
	tail := "\n[… cut: " + more + "]"
	room := max(n-len(tail), 0)
	cut := room
	for cut > 0 && cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if nl := strings.LastIndexByte(s[:cut], '\n'); nl > cut*3/4 {
		cut = nl
	}
	return strings.TrimRight(s[:cut], " \n") + tail
}

// terminalSafe shows the control characters and bidirectional overrides of
// archived text as escapes: Claude Code shows a tool's result on the
// user's terminal, and the model has no use for them raw. A line that is
// JSON (get's raw lines) keeps valid JSON escapes.
func terminalSafe(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if json.Valid([]byte(l)) {
			lines[i] = string(termsafe.JSON([]byte(l)))
		} else {
			lines[i] = termsafe.String(l)
		}
	}
	return strings.Join(lines, "\n")
}
