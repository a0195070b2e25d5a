package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/retrieve"
	"github.com/carryover-dev/carryover/sqlite"
)

type jsonHit struct {
	Session string  `json:"session"`
	Turn    int     `json:"turn"`
	Lines   [2]int  `json:"lines"`
	Score   float64 `json:"score"`
	Text    string  `json:"text"`
}

func (a *app) cmdSearch(ctx context.Context, args []string) error {
	fl := a.newFlags("search")
	session := fl.String("session", "", "only this session (id or unique prefix)")
	project := fl.String("project", "", "only this project directory (\".\" for the current one)")
	budget := fl.Int("budget", 4000, "characters of result text in all")
	limit := fl.Int("limit", 8, "at most this many hits")
	asJSON := fl.Bool("json", false, "print a JSON array of hits")
	since := fl.String("since", "", "only chunks from this time on: RFC 3339, a date (2006-01-02) or an age (7d, 24h)")
	kind := fl.String("kind", "", "only chunks holding a fact of this kind (goal, todo, decision, constraint, error, fix, file_edit, command, marker)")
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
		return usageErr{fmt.Sprintf("search: --kind %q: want one of goal, todo, decision, constraint, error, fix, file_edit, command, marker", *kind)}
	}
	cfg, err := a.loadConfig("")
	if err != nil {
		return err
	}
	// A search reads a few hundred pages once, as a recall does.
	st, err := a.openStoreWith(ctx, cfg, sqlite.Options{CachePages: hook.ReadCachePages}, false)
	if err != nil {
		return err
	}
	defer st.Close()
	var src carryover.Store = st
	if k != "" {
		src = retrieve.WithKind(st, k)
	}
	if *project != "" {
		if q.Project, err = filepath.Abs(*project); err != nil {
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
	res := resp.Results
	if *asJSON {
		hits := make([]jsonHit, 0, len(res))
		for _, r := range res {
			hits = append(hits, jsonHit{Session: r.SessionID, Turn: r.Turn, Lines: r.Lines, Score: r.Score, Text: r.Text})
		}
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(hits)
	}
	if len(res) == 0 {
		fmt.Fprintln(a.stdout, "no matches")
		return nil
	}
	if resp.Weak {
		fmt.Fprintln(a.stdout, "no strong match; closest:")
	}
	for i, r := range res {
		if i > 0 {
			fmt.Fprintln(a.stdout)
		}
		fmt.Fprintf(a.stdout, "── %s  turn %d  lines %d-%d  score %.2f\n%s\n", carryover.ShortID(r.SessionID), r.Turn, r.Lines[0], r.Lines[1], r.Score, r.Text)
	}
	return nil
}

// findSession resolves a session id or a unique prefix of one.
func findSession(ctx context.Context, st carryover.Store, id string) (carryover.Session, error) {
	if s, err := st.Session(ctx, id); err == nil {
		return s, nil
	}
	all, err := st.Sessions(ctx, carryover.SessionFilter{})
	if err != nil {
		return carryover.Session{}, err
	}
	var found []carryover.Session
	for _, s := range all {
		if strings.HasPrefix(s.ID, id) {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 0:
		return carryover.Session{}, hintErr{fmt.Errorf("no archived session %q", id), "'carryover sessions' lists them"}
	case 1:
		return found[0], nil
	}
	return carryover.Session{}, fmt.Errorf("session prefix %q is ambiguous (%d sessions)", id, len(found))
}

func (a *app) cmdSessions(ctx context.Context, args []string) error {
	fl := a.newFlags("sessions")
	project := fl.String("project", "", "only this project directory (\".\" for the current one)")
	asJSON := fl.Bool("json", false, "print JSON")
	if _, err := parseInterspersed(fl, args); err != nil {
		return err
	}
	cfg, err := a.loadConfig("")
	if err != nil {
		return err
	}
	st, err := a.openStoreRead(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	f := carryover.SessionFilter{}
	if *project != "" {
		if f.Project, err = filepath.Abs(*project); err != nil {
			return err
		}
	}
	ss, err := st.Sessions(ctx, f)
	if err != nil {
		return err
	}
	if *asJSON {
		type js struct {
			ID          string    `json:"id"`
			Project     string    `json:"project"`
			Title       string    `json:"title"`
			Started     time.Time `json:"started"`
			Updated     time.Time `json:"updated"`
			Turns       int       `json:"turns"`
			Compactions int       `json:"compactions"`
			Chunks      int       `json:"chunks"`
			Transcript  string    `json:"transcript"`
		}
		out := make([]js, 0, len(ss))
		for _, s := range ss {
			out = append(out, js{s.ID, s.Project, s.Title, s.Started, s.Updated, s.Turns, s.Windows, s.Chunks, s.TranscriptPath})
		}
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if len(ss) == 0 {
		fmt.Fprintln(a.stdout, "no sessions archived yet: run 'carryover ingest --all' or install the hooks")
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tUPDATED\tTURNS\tCOMPACTIONS\tCHUNKS\tPROJECT\tTITLE")
	for _, s := range ss {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%s\n", carryover.ShortID(s.ID), s.Updated.Local().Format("2006-01-02 15:04"),
			s.Turns, s.Windows, s.Chunks, s.Project, truncate(s.Title, 60))
	}
	return tw.Flush()
}

func (a *app) cmdShow(ctx context.Context, args []string) error {
	fl := a.newFlags("show")
	turn := fl.Int("turn", -1, "only this turn")
	pos, err := parseInterspersed(fl, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErr{"show: give one session id (or a unique prefix)"}
	}
	cfg, err := a.loadConfig("")
	if err != nil {
		return err
	}
	st, err := a.openStoreRead(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	s, err := findSession(ctx, st, pos[0])
	if err != nil {
		return err
	}
	chunks, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: s.ID, Turn: *turn})
	if err != nil {
		return err
	}
	comps, err := st.Compactions(ctx, s.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "session %s\nproject %s\ntranscript %s\n%d turns, %d compactions, %d chunks\n",
		s.ID, s.Project, s.TranscriptPath, s.Turns, s.Windows, s.Chunks)
	if *turn >= 0 && len(chunks) == 0 {
		return fmt.Errorf("session %s has no turn %d", carryover.ShortID(s.ID), *turn)
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
			fmt.Fprintf(a.stdout, "\n━━ turn %d (window %d) %s\n", c.Turn, c.Window, truncate(c.Prompt, 100))
		}
		fmt.Fprintf(a.stdout, "\n── chunk %d, lines %d-%d\n%s\n", c.Seq, c.FirstLine, c.LastLine, c.Text)
	}
	return nil
}

func truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
