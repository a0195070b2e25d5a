package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/retrieve"
	"github.com/carryover-dev/carryover/termsafe"
)

func (a *app) cmdSessions(ctx context.Context, args []string) error {
	fl := a.newFlags("sessions")
	project := fl.String("project", "", "only this project: its directory, or any path inside it (\".\" for the current one)")
	asJSON := fl.Bool("json", false, "print JSON")
	limit := fl.Int("limit", 20, "at most this many sessions, the newest (0 for all)")
	since := fl.String("since", "", "only sessions updated since: an age (7d, 24h), a date (2006-01-02) or RFC 3339")
	wide := fl.Bool("wide", false, "do not cut the table to the terminal's width (COLUMNS)")
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
	t := newTable(column{Name: "SESSION"}, column{Name: "UPDATED"}, column{Name: "TURNS", Right: true},
		column{Name: "COMPACTIONS", Right: true}, column{Name: "CHUNKS", Right: true, Drop: true}, column{Name: "SUBAGENTS", Right: true},
		column{Name: "PROJECT", Min: 12, Left: true}, column{Name: "BRANCH", Min: 8}, column{Name: "TITLE", Min: 16})
	for _, s := range ss {
		t.add(sh.Short(s.ID), s.Updated.Local().Format("2006-01-02 15:04"), fmt.Sprint(s.Turns), fmt.Sprint(s.Windows),
			fmt.Sprint(s.Chunks), fmt.Sprint(s.Subagents), termsafe.Line(a.shortPath(s.Project)),
			termsafe.Line(cmp.Or(s.Branch, "-")), termsafe.Line(truncate(s.Title, 60)))
	}
	if err := t.write(a.stdout, a.termWidth(*wide)); err != nil {
		return err
	}
	if more > 0 {
		fmt.Fprintf(a.stdout, "%d more; --limit 0 for all\n", more)
	}
	return nil
}
