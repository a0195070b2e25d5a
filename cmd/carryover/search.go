package main

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/internal/cmdhelp"
	"github.com/carryover-dev/carryover/internal/progress"
	"github.com/carryover-dev/carryover/retrieve"
	"github.com/carryover-dev/carryover/storeopen"
	"github.com/carryover-dev/carryover/termsafe"
)

func (a *app) cmdSearch(ctx context.Context, args []string) error {
	fl := a.newFlags("search")
	session := fl.String("session", "", "only this session (id or unique prefix)")
	project := fl.String("project", "", "only this project directory (\".\" for the current one)")
	budget := fl.Int("budget", 4000, "characters of result text in all")
	limit := fl.Int("limit", 8, "at most this many hits")
	asJSON := fl.Bool("json", false, "print one JSON object a hit, a line each")
	since := fl.String("since", "", "only chunks from this time on: RFC 3339, a date (2006-01-02) or an age (7d, 24h)")
	kind := fl.String("kind", "", "only chunks holding a fact of this kind (goal, todo, decision, constraint, error, fix, file_edit, command, marker, value)")
	file := fl.String("file", "", "only chunks that touched a file whose path contains this")
	words, err := parseInterspersed(fl, args)
	if err != nil {
		return err
	}
	query := strings.TrimSpace(strings.Join(words, " "))
	if query == "" {
		return usageErr{"search: give a query"}
	}
	if *budget <= 0 || *limit <= 0 {
		return usageErr{"search: --budget and --limit must be positive"}
	}
	q := carryover.Query{Text: query, Limit: *limit, File: strings.TrimSpace(*file)}
	if *since != "" {
		if q.Since, err = retrieve.ParseSince(*since, time.Now()); err != nil {
			return usageErr{"search: " + err.Error()}
		}
	}
	k := carryover.ItemKind(strings.ToLower(strings.TrimSpace(*kind)))
	if k != "" && !slices.Contains(carryover.ItemKinds, k) {
		return usageErr{fmt.Sprintf("search: --kind %q: want one of goal, todo, decision, constraint, error, fix, file_edit, command, marker, value", *kind)}
	}
	cfg, err := a.loadConfig("")
	if err != nil {
		return err
	}
	if err := a.checkArchived(cfg); err != nil {
		return err
	}
	// A search reads a few hundred pages once, as a recall does.
	st, err := a.openStoreWith(ctx, cfg, storeopen.LocalOptions{CachePages: hook.ReadCachePages}, false)
	if err != nil {
		return err
	}
	defer st.Close()
	var src carryover.Store = st
	if k != "" {
		src = retrieve.WithKind(st, k)
	}
	if *project != "" {
		if q.Project, err = resolveProject(ctx, st, *project); err != nil {
			return err
		}
	}
	if *session != "" {
		s, err := findSession(ctx, st, *session)
		if err != nil {
			return err
		}
		q.SessionID = s.ID
	}
	resp, err := retrieve.Search(ctx, src, retrieve.SearchRequest{Query: q, Budget: *budget})
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	sh, err := shortener(ctx, st)
	if err != nil {
		return err
	}
	return a.writeHits(resp, sh, query, *asJSON)
}

func (a *app) cmdSessions(ctx context.Context, args []string) error {
	fl := a.newFlags("sessions")
	project := fl.String("project", "", "only this project: its directory, or any path inside it (\".\" for the current one)")
	asJSON := fl.Bool("json", false, "print JSON")
	limit := fl.Int("limit", 20, "at most this many sessions, the newest (0 for all)")
	since := fl.String("since", "", "only sessions updated since: an age (7d, 24h), a date (2006-01-02) or RFC 3339")
	if _, err := parseInterspersed(fl, args); err != nil {
		return err
	}
	if *limit < 0 {
		return usageErr{"sessions: --limit must be 0 (all) or more"}
	}
	var from time.Time
	if *since != "" {
		var err error
		if from, err = retrieve.ParseSince(*since, time.Now()); err != nil {
			return usageErr{"sessions: --since: " + err.Error()}
		}
	}
	_, st, err := a.readStore(ctx, "", false)
	if err != nil {
		return err
	}
	defer st.Close()
	// Subagents are listed under their session ('carryover show').
	f := carryover.SessionFilter{TopLevel: true}
	if *project != "" {
		if f.Project, err = resolveProject(ctx, st, *project); err != nil {
			return err
		}
	}
	ss, err := st.Sessions(ctx, f)
	if err != nil {
		return err
	}
	ss = slices.DeleteFunc(ss, func(s carryover.Session) bool { return s.Updated.Before(from) })
	more := 0
	if *limit > 0 && len(ss) > *limit {
		more, ss = len(ss)-*limit, ss[:*limit]
	}
	sh, err := shortener(ctx, st)
	if err != nil {
		return err
	}
	if *asJSON {
		type js struct {
			ID          string    `json:"id"`
			Short       string    `json:"short"`
			Project     string    `json:"project"`
			Cwd         string    `json:"cwd,omitempty"`
			Branch      string    `json:"branch,omitempty"`
			Title       string    `json:"title"`
			Started     time.Time `json:"started"`
			Updated     time.Time `json:"updated"`
			Turns       int       `json:"turns"`
			Compactions int       `json:"compactions"`
			Chunks      int       `json:"chunks"`
			Subagents   int       `json:"subagents"`
			Transcript  string    `json:"transcript"`
		}
		out := make([]js, 0, len(ss))
		for _, s := range ss {
			out = append(out, js{s.ID, sh.Short(s.ID), s.Project, s.Cwd, s.Branch, s.Title, s.Started, s.Updated,
				s.Turns, s.Windows, s.Chunks, s.Subagents, s.TranscriptPath})
		}
		if more > 0 {
			fmt.Fprintf(a.stderr, "carryover: %d more; --limit 0 for all\n", more)
		}
		return a.writeJSON(out)
	}
	if len(ss) == 0 && *since != "" {
		fmt.Fprintln(a.stdout, "no sessions updated since "+from.Local().Format("2006-01-02 15:04"))
		return nil
	}
	if len(ss) == 0 {
		fmt.Fprintln(a.stdout, "no sessions archived yet: run 'carryover ingest --all' or install the hooks")
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tUPDATED\tTURNS\tCOMPACTIONS\tCHUNKS\tSUBAGENTS\tPROJECT\tBRANCH\tTITLE")
	for _, s := range ss {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\n", sh.Short(s.ID), s.Updated.Local().Format("2006-01-02 15:04"),
			s.Turns, s.Windows, s.Chunks, s.Subagents, termsafe.Line(a.shortPath(s.Project)), termsafe.Line(cmp.Or(s.Branch, "-")),
			termsafe.Line(truncate(s.Title, 60)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if more > 0 {
		fmt.Fprintf(a.stdout, "%d more; --limit 0 for all\n", more)
	}
	return nil
}

func (a *app) cmdShow(ctx context.Context, args []string) error {
	fl := a.newFlags("show")
	turn := fl.Int("turn", -1, "only this turn (default: the whole session)")
	raw := fl.Bool("raw", false, "print the transcript's lines as archived (JSON Lines, secrets masked; escaped on a terminal)")
	lineRange := fl.String("lines", "", "only these transcript lines: A-B, A- or A")
	pos, err := parseInterspersed(fl, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErr{"show: give one session id (a unique prefix, or SESSION/agent-ID for a subagent)"}
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
	}
	_, st, err := a.readStore(ctx, "", false)
	if err != nil {
		return err
	}
	defer st.Close()
	s, err := findSession(ctx, st, pos[0])
	if err != nil {
		return err
	}
	if *raw {
		return a.showRaw(ctx, st, s, from, to)
	}
	chunks, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: s.ID, Turn: *turn, FromLine: from, ToLine: to})
	if err != nil {
		return err
	}
	comps, err := st.Compactions(ctx, s.ID)
	if err != nil {
		return err
	}
	subs, err := retrieve.Subagents(ctx, st, s.ID)
	if err != nil {
		return err
	}
	sh, err := shortener(ctx, st)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "session %s\n", s.ID)
	if s.Parent != "" {
		fmt.Fprintf(a.stdout, "subagent of %s\n", s.Parent)
	}
	if s.Title != "" {
		fmt.Fprintf(a.stdout, "title %s\n", termsafe.Line(truncate(s.Title, 100)))
	}
	fmt.Fprintf(a.stdout, "project %s\n", termsafe.Line(s.Project))
	if s.Cwd != "" && s.Cwd != s.Project {
		fmt.Fprintf(a.stdout, "cwd %s\n", termsafe.Line(s.Cwd))
	}
	if s.Branch != "" {
		fmt.Fprintf(a.stdout, "branch %s\n", termsafe.Line(s.Branch))
	}
	fmt.Fprintf(a.stdout, "transcript %s\n%d turns, %d compactions, %d chunks\n",
		termsafe.Line(s.TranscriptPath), s.Turns, s.Windows, s.Chunks)
	if len(subs) > 0 {
		fmt.Fprintf(a.stdout, "%s ('carryover show %s' shows one):\n", plural(len(subs), "subagent"), subagentRef(sh, s.ID, subs[0].ID))
		tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
		for _, sub := range subs {
			fmt.Fprintf(tw, "  %s\t%s\t%d chunks\t%s\n", subagentRef(sh, s.ID, sub.ID),
				sub.Started.Local().Format("2006-01-02 15:04"), sub.Chunks, termsafe.Line(truncate(sub.Title, 70)))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if *turn >= 0 && len(chunks) == 0 {
		return fmt.Errorf("session %s has no turn %d", sh.Short(s.ID), *turn)
	}
	if (from > 0 || to > 0) && len(chunks) == 0 {
		return fmt.Errorf("session %s has no chunk in lines %s", sh.Short(s.ID), *lineRange)
	}
	lastTurn, lastWindow := -1, 0
	for _, c := range chunks {
		for c.Window > lastWindow {
			lastWindow++
			for _, cp := range comps {
				if cp.Window == lastWindow {
					fmt.Fprintf(a.stdout, "\n════ compaction %d (%s, line %d, %d tokens before)\n", cp.Window, cp.Trigger, cp.Line, cp.PreTokens)
				}
			}
		}
		if c.Turn != lastTurn {
			lastTurn = c.Turn
			fmt.Fprintf(a.stdout, "\n━━ turn %d (window %d) %s\n", c.Turn, c.Window, termsafe.Line(truncate(c.Prompt, 100)))
		}
		fmt.Fprintf(a.stdout, "\n── chunk %d, lines %d-%d\n%s\n", c.Seq, c.FirstLine, c.LastLine, termsafe.String(c.Text))
	}
	return nil
}

// rawPage is how many raw lines show reads at a time.
const rawPage = 1000

// showRaw prints the session's raw lines from..to (0: every line): escaped
// on a terminal (tools print escape sequences), else the exact bytes.
func (a *app) showRaw(ctx context.Context, st carryover.Store, s carryover.Session, from, to int) error {
	first, last, err := st.RawRange(ctx, s.ID)
	if err != nil {
		return err
	}
	if last == 0 {
		return hintErr{fmt.Errorf("session %s has no raw lines: it was archived before carryover kept them", carryover.ShortID(s.ID)),
			"'carryover show " + carryover.ShortID(s.ID) + "' without --raw prints its chunks"}
	}
	from = max(from, first)
	if to <= 0 || to > last {
		to = last
	}
	if from > to {
		return fmt.Errorf("session %s has raw lines %d-%d only", carryover.ShortID(s.ID), first, last)
	}
	tty := progress.IsTerminal(a.stdout)
	w := bufio.NewWriterSize(a.stdout, 64<<10)
	for p := from; p <= to; p += rawPage {
		lines, err := st.RawLines(ctx, s.ID, p, min(p+rawPage-1, to))
		if err != nil {
			return err
		}
		for _, l := range lines {
			text := l.Text
			if tty {
				text = termsafe.RawLine(text)
			}
			w.Write(text)
			w.WriteByte('\n')
		}
	}
	return w.Flush()
}

// subagentRef is how a subagent is named under its parent: the parent's
// short id, "/" and the subagent's own name (the whole id, for the flat
// layout's "agent-…").
func subagentRef(sh *carryover.IDShortener, parent, id string) string {
	return sh.Short(parent) + "/" + carryover.AgentName(id)
}

func truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// writeHits prints each hit's chunk id, match, project, date, session and
// matching part (query words bold on a terminal); --budget bounds it.
func (a *app) writeHits(resp retrieve.SearchResponse, sh *carryover.IDShortener, query string, asJSON bool) error {
	w := bufio.NewWriter(a.stdout)
	if asJSON {
		for _, r := range resp.Results {
			score := r.Score
			if err := a.writeJSONLine(w, jsonChunk{Chunk: r.ChunkID, Session: r.SessionID, Short: sh.Short(r.SessionID),
				Project: r.Project, Time: r.Time, Turn: r.Turn, Lines: r.Lines, Score: &score, Band: r.Band, Text: r.Snippet}); err != nil {
				return err
			}
		}
		return w.Flush()
	}
	if len(resp.Results) == 0 {
		fmt.Fprintln(w, "no matches")
		return w.Flush()
	}
	if resp.Weak {
		fmt.Fprintln(w, "no strong match; closest:")
	}
	tty := progress.IsTerminal(a.stdout)
	for _, r := range resp.Results {
		text := termsafe.String(strings.TrimSpace(r.Snippet))
		if tty {
			text = cmdhelp.Bold(text, query)
		}
		fmt.Fprintf(w, "── chunk %d · %s · %s · %s · session %s · turn %d · lines %d-%d\n%s\n\n", r.ChunkID, r.Band,
			termsafe.Line(a.shortPath(r.Project)), r.Time.Local().Format("2006-01-02 15:04"), sh.Short(r.SessionID),
			r.Turn, r.Lines[0], r.Lines[1], text)
	}
	fmt.Fprintln(w, "'carryover get CHUNK' prints a hit's whole chunk.")
	return w.Flush()
}
