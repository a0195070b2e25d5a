package main

import (
	"bufio"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/cmdhelp"
	"github.com/carryover-dev/carryover/internal/progress"
	"github.com/carryover-dev/carryover/retrieve"
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
	kind := fl.String("kind", "", "only chunks holding a fact of this kind ("+carryover.ItemKindNames()+")")
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
		return usageErr{fmt.Sprintf("search: --kind %q: want one of %s", *kind, carryover.ItemKindNames())}
	}
	cfg, err := a.loadConfig("")
	if err != nil {
		return err
	}
	if err := a.checkArchived(cfg); err != nil {
		return err
	}
	// A search reads a few hundred pages once, as a recall does.
	st, err := a.openSearchStore(ctx, cfg)
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
		if r.RawLine > 0 {
			// Numbered lines of a tool result or message kept whole.
			text += fmt.Sprintf("\n   (line %d of the transcript; all of it: carryover get %s:%d-%d)", r.RawLine, sh.Short(r.SessionID), r.RawLine, r.RawLine)
		}
		fmt.Fprintf(w, "── chunk %d · %s · %s · %s · session %s · turn %d · lines %d-%d\n%s\n\n", r.ChunkID, r.Band,
			termsafe.Line(a.shortPath(r.Project)), r.Time.Local().Format("2006-01-02 15:04"), sh.Short(r.SessionID),
			r.Turn, r.Lines[0], r.Lines[1], text)
	}
	fmt.Fprintln(w, "'carryover get CHUNK' prints a hit's whole chunk.")
	return w.Flush()
}
