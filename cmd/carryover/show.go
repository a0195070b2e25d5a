package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/retrieve"
	"github.com/carryover-dev/carryover/stats"
	"github.com/carryover-dev/carryover/termsafe"
)

// showSubagents is how many subagents the overview lists by name.
const showSubagents = 15

func (a *app) cmdShow(ctx context.Context, args []string) error {
	fl := a.newFlags("show")
	turn := fl.Int("turn", -1, "print this turn's text (default: the overview)")
	lineRange := fl.String("lines", "", "print the text of these transcript lines: A-B, A- or A")
	full := fl.Bool("full", false, "print the whole session's text")
	raw := fl.Bool("raw", false, "print the transcript's lines as archived (JSON Lines, secrets masked; escaped on a terminal)")
	noPager := fl.Bool("no-pager", false, "never page the output (a terminal's long output goes through $PAGER, else less -R)")
	wide := fl.Bool("wide", false, "do not cut the overview to the terminal's width")
	allSubs := fl.Bool("subagents", false, fmt.Sprintf("list every subagent (the overview lists %d)", showSubagents))
	pos, err := parseInterspersed(fl, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErr{"show: give one session: a unique prefix of its id, SESSION/agent-ID for a subagent, or its transcript's path"}
	}
	from, to, err := retrieve.ParseLines(*lineRange)
	if err != nil {
		return usageErr{"show: --lines: " + err.Error()}
	}
	switch {
	case *turn < -1:
		return usageErr{fmt.Sprintf("show: --turn %d: want a turn number, 0 or more", *turn)}
	case *raw && *turn >= 0:
		return usageErr{"show: --raw takes --lines, not --turn"}
	case *full && (*turn >= 0 || *lineRange != ""):
		return usageErr{"show: --full prints every turn: give it without --turn and --lines"}
	}
	_, st, err := a.readStore(ctx, "", false)
	if err != nil {
		return err
	}
	defer st.Close()
	s, err := a.showTarget(ctx, st, pos[0])
	if err != nil {
		return err
	}
	if *raw {
		return a.showRaw(ctx, st, s, from, to)
	}
	text := *full || *turn >= 0 || *lineRange != ""
	f := carryover.ChunkFilter{SessionID: s.ID, Turn: *turn, FromLine: from, ToLine: to}
	chunks, err := st.Chunks(ctx, f)
	if err != nil {
		return err
	}
	comps, err := st.Compactions(ctx, s.ID)
	if err != nil {
		return err
	}
	sh, err := shortener(ctx, st)
	if err != nil {
		return err
	}
	if *turn >= 0 && len(chunks) == 0 {
		return fmt.Errorf("session %s has no turn %d", sh.Short(s.ID), *turn)
	}
	if (from > 0 || to > 0) && len(chunks) == 0 {
		return fmt.Errorf("session %s has no chunk in lines %s", sh.Short(s.ID), *lineRange)
	}
	// The whole output is built first: the pager is chosen by its length.
	var b bytes.Buffer
	width := a.termWidth(*wide)
	if text {
		writeHeader(&b, s, "")
		writeChunks(&b, chunks, comps)
	} else {
		subs, err := retrieve.Subagents(ctx, st, s.ID) // only the overview lists them
		if err != nil {
			return err
		}
		a.writeOverview(&b, s, sh, chunks, comps, subs, width, *allSubs)
	}
	return a.page(b.Bytes(), *noPager)
}

// showTarget resolves show's argument: a transcript's path (the session
// archived from it, else the one its name or first lines give), or a
// session id.
func (a *app) showTarget(ctx context.Context, st carryover.Store, ref string) (carryover.Session, error) {
	fi, err := os.Stat(ref)
	if err != nil || !fi.Mode().IsRegular() || !strings.HasSuffix(strings.ToLower(ref), ".jsonl") {
		if strings.HasSuffix(strings.ToLower(ref), ".jsonl") && errors.Is(err, os.ErrNotExist) {
			return carryover.Session{}, fmt.Errorf("no transcript at %s", ref)
		}
		return findSession(ctx, st, ref)
	}
	abs, err := filepath.Abs(ref)
	if err != nil {
		return carryover.Session{}, err
	}
	all, err := st.Sessions(ctx, carryover.SessionFilter{})
	if err != nil {
		return carryover.Session{}, err
	}
	for _, s := range all {
		if samePath(s.TranscriptPath, abs) {
			return s, nil
		}
	}
	// Archived from elsewhere (a copy, another machine): by its id.
	if id := ingest.SessionIDOf(abs); id != "" {
		if s, err := st.Session(ctx, id); err == nil {
			return s, nil
		}
	}
	return carryover.Session{}, hintErr{fmt.Errorf("transcript %s is not archived", ref),
		"'carryover ingest " + ref + "' archives it"}
}

// samePath compares two absolute paths as the file system does: without
// case on Windows.
func samePath(a, b string) bool {
	a, b = filepath.Clean(a), filepath.Clean(b)
	if runtime.GOOS == "windows" {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// turnInfo is one turn of the overview.
type turnInfo struct {
	turn, window  int
	first, last   int // transcript lines
	chunks, chars int
	prompt        string
}

// writeOverview prints where the session ran, its subagents, and a line a
// turn (its first request, lines and size) with the compactions between
// them: a session of a few hundred turns stays readable, and --turn,
// --lines or --full print the text.
func (a *app) writeOverview(w io.Writer, s carryover.Session, sh *carryover.IDShortener, chunks []carryover.Chunk,
	comps []carryover.Compaction, subs []carryover.Session, width int, allSubs bool) {
	var turns []*turnInfo
	chars := 0
	for _, c := range chunks {
		chars += len(c.Text)
		if len(turns) == 0 || turns[len(turns)-1].turn != c.Turn {
			turns = append(turns, &turnInfo{turn: c.Turn, window: c.Window, first: c.FirstLine, prompt: c.Prompt})
		}
		t := turns[len(turns)-1]
		t.last = max(t.last, c.LastLine)
		t.chunks++
		t.chars += len(c.Text)
		if t.prompt == "" {
			t.prompt = c.Prompt
		}
	}
	ref := sh.Short(s.ID)
	if s.Parent != "" {
		ref = subagentRef(sh, s.Parent, s.ID)
	}
	size := stats.Bytes(int64(chars)) + " of text"
	if !s.Started.IsZero() {
		size += ", " + s.Started.Local().Format("2006-01-02 15:04") + " to " + s.Updated.Local().Format("2006-01-02 15:04")
	}
	writeHeader(w, s, size)
	if len(subs) > 0 {
		fmt.Fprintf(w, "\n%s ('carryover show %s' shows one):\n", plural(len(subs), "subagent"), subagentRef(sh, s.ID, subs[0].ID))
		t := newTable(column{}, column{}, column{Right: true}, column{Min: 10})
		for i, sub := range subs {
			if i == showSubagents && !allSubs {
				break
			}
			t.add("  "+subagentRef(sh, s.ID, sub.ID), sub.Started.Local().Format("2006-01-02 15:04"),
				plural(sub.Chunks, "chunk"), termsafe.Line(truncate(sub.Title, 70)))
		}
		_ = t.write(w, width)
		if len(subs) > showSubagents && !allSubs {
			fmt.Fprintf(w, "  … %d more ('carryover show %s --subagents' lists them all)\n", len(subs)-showSubagents, ref)
		}
	}
	if len(turns) == 0 {
		fmt.Fprintln(w, "\nno chunks archived for it")
		return
	}
	fmt.Fprintln(w)
	t := newTable(column{Name: "TURN", Right: true}, column{Name: "LINES"}, column{Name: "SIZE", Right: true},
		column{Name: "FIRST REQUEST", Min: 20})
	window := 0
	for _, tu := range turns {
		for tu.window > window {
			window++
			for _, cp := range comps {
				if cp.Window == window {
					t.note(fmt.Sprintf("════ compaction %d (%s, line %d, %d tokens before)", cp.Window, termsafe.Line(cp.Trigger), cp.Line, cp.PreTokens))
				}
			}
		}
		prompt := strings.TrimSpace(tu.prompt)
		if prompt == "" {
			prompt = "-"
		}
		t.add(fmt.Sprint(tu.turn), fmt.Sprintf("%d-%d", tu.first, tu.last), stats.Bytes(int64(tu.chars)),
			termsafe.Line(truncate(prompt, 200)))
	}
	_ = t.write(w, width)
	fmt.Fprintf(w, "\n'carryover show %s --turn N' prints a turn, --lines A-B a part of the transcript, --full all of it.\n", ref)
}

// writeHeader prints where a session ran and its counts, extra after them.
func writeHeader(w io.Writer, s carryover.Session, extra string) {
	fmt.Fprintf(w, "session %s\n", s.ID)
	if s.Parent != "" {
		fmt.Fprintf(w, "subagent of %s\n", s.Parent)
	}
	if s.Title != "" {
		fmt.Fprintf(w, "title %s\n", termsafe.Line(truncate(s.Title, 100)))
	}
	fmt.Fprintf(w, "project %s\n", termsafe.Line(s.Project))
	if s.Cwd != "" && s.Cwd != s.Project {
		fmt.Fprintf(w, "cwd %s\n", termsafe.Line(s.Cwd))
	}
	if s.Branch != "" {
		fmt.Fprintf(w, "branch %s\n", termsafe.Line(s.Branch))
	}
	counts := plural(s.Turns, "turn") + ", " + plural(s.Windows, "compaction") + ", " + plural(s.Chunks, "chunk")
	if extra != "" {
		counts += ", " + extra
	}
	fmt.Fprintf(w, "transcript %s\n%s\n", termsafe.Line(s.TranscriptPath), counts)
}

// writeChunks prints chunks' text turn by turn, with the compactions
// between them.
func writeChunks(w io.Writer, chunks []carryover.Chunk, comps []carryover.Compaction) {
	lastTurn, lastWindow := -1, 0
	for _, c := range chunks {
		for c.Window > lastWindow {
			lastWindow++
			for _, cp := range comps {
				if cp.Window == lastWindow {
					fmt.Fprintf(w, "\n════ compaction %d (%s, line %d, %d tokens before)\n", cp.Window, termsafe.Line(cp.Trigger), cp.Line, cp.PreTokens)
				}
			}
		}
		if c.Turn != lastTurn {
			lastTurn = c.Turn
			fmt.Fprintf(w, "\n━━ turn %d (window %d) %s\n", c.Turn, c.Window, termsafe.Line(truncate(c.Prompt, 100)))
		}
		fmt.Fprintf(w, "\n── chunk %d, lines %d-%d\n%s\n", c.Seq, c.FirstLine, c.LastLine, termsafe.String(c.Text))
	}
}
