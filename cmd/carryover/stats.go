package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/stats"
	"github.com/carryover-dev/carryover/termsafe"
)

func (a *app) cmdStats(ctx context.Context, args []string) error {
	fl := a.newFlags("stats")
	project := fl.String("project", "", "only this project: its directory, or any path inside it (\".\" for the current one)")
	global := fl.Bool("global", false, "every project")
	asJSON := fl.Bool("json", false, "print the report as JSON")
	limit := fl.Int("sessions", 10, "sessions listed in the table (the JSON has all)")
	if _, err := parseInterspersed(fl, args); err != nil {
		return err
	}
	if *global && *project != "" {
		return usageErr{"stats: --project and --global exclude each other"}
	}
	_, st, err := a.readStore(ctx, "", false)
	if err != nil {
		return err
	}
	defer st.Close()
	var f stats.Filter
	switch {
	case *project != "":
		if f.Project, err = resolveProject(ctx, st, *project); err != nil {
			return err
		}
	case !*global:
		// The current directory's project when it has sessions, else every
		// project: a report of nothing helps nobody.
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("current directory: %w", err)
		}
		p, ok, err := projectOrRoot(ctx, st, wd)
		if err != nil {
			return err
		}
		if ok {
			f.Project = p
		}
	}
	rep, err := stats.Compute(ctx, st, f)
	if err != nil {
		return err
	}
	if *asJSON {
		return a.writeJSON(rep)
	}
	return writeStats(a.stdout, rep, *limit)
}

func writeStats(w io.Writer, rep stats.Report, limit int) error {
	scope := "every project"
	if rep.Project != "" {
		scope = "project " + termsafe.Line(rep.Project) + " (--global for every project)"
	}
	fmt.Fprintf(w, "carryover stats: %s\n\n", scope)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "archived\t%s, %s, %s; store %s\n", plural(rep.Sessions, "session"), plural(rep.Turns, "turn"),
		plural(rep.Chunks, "chunk"), stats.Bytes(rep.StoreBytes))
	fmt.Fprintf(tw, "compactions\t%d (%d auto, %d manual)\n", rep.Compactions.Total, rep.Compactions.Auto, rep.Compactions.Manual)
	fmt.Fprintf(tw, "injected\t%s, %s, %s: %s (estimate)\n", plural(rep.Restores, "restore"), plural(rep.Recalls, "recall"),
		plural(rep.Instructions, "compaction instruction"), plural(rep.TokensInjected, "token"))
	fmt.Fprintf(tw, "redactions\t%s\n", statsNone(statsByName(rep.Redactions)))
	files := make([]stats.Count, len(rep.TopFiles))
	for i, c := range rep.TopFiles {
		// The end of a path says most: shorten from the left.
		if rep.Project != "" {
			c.Text = strings.TrimPrefix(c.Text, rep.Project+string(filepath.Separator))
		}
		if r := []rune(c.Text); len(r) > 45 {
			tail := string(r[len(r)-44:])
			if i := strings.IndexByte(tail, '/'); i >= 0 && i < len(tail)-1 {
				tail = tail[i:]
			}
			c.Text = "…" + tail
		}
		files[i] = c
	}
	fmt.Fprintf(tw, "top files\t%s\n", statsNone(statsCounts(files, 5)))
	fmt.Fprintf(tw, "top commands\t%s\n", statsNone(statsCounts(rep.TopCommands, 5)))
	if err := tw.Flush(); err != nil {
		return err
	}

	if len(rep.Injected) > 0 {
		fmt.Fprintln(w, "\ntokens injected")
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		wid := 0
		for _, e := range rep.Injected {
			wid = max(wid, len(e.Event))
		}
		fmt.Fprintf(tw, "%-*s\tCOUNT\tTOKENS\tSESSIONS\tp50/SESSION\tp95/SESSION\tp50/EACH\tp95/EACH\t\n", wid, "EVENT")
		for _, e := range rep.Injected {
			fmt.Fprintf(tw, "%-*s\t%d\t%d\t%d\t%.0f\t%.0f\t%.0f\t%.0f\t\n", wid, termsafe.Line(e.Event), e.Count, e.Tokens, e.PerSession.N,
				e.PerSession.P50, e.PerSession.P95, e.PerInjection.P50, e.PerInjection.P95)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(rep.Hooks) > 0 {
		fmt.Fprintln(w, "\nhook latency (whole process)")
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		wid := 0
		for _, h := range rep.Hooks {
			wid = max(wid, len(h.Event))
		}
		fmt.Fprintf(tw, "%-*s\tRUNS\tp50 ms\tp95 ms\tMAX ms\tOUTCOMES\t\n", wid, "EVENT")
		for _, h := range rep.Hooks {
			fmt.Fprintf(tw, "%-*s\t%d\t%.0f\t%.0f\t%.0f\t%s\t\n", wid, termsafe.Line(h.Event), h.Runs, h.LatencyMS.P50, h.LatencyMS.P95,
				h.LatencyMS.Max, statsByName(h.Outcomes))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(rep.PerSession) > 0 && limit > 0 {
		n := min(limit, len(rep.PerSession))
		fmt.Fprintf(w, "\nsessions (latest %d of %d)\n", n, len(rep.PerSession))
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SESSION\tUPDATED\tTURNS\tCOMPACTIONS\tRESTORES\tRECALLS\tTOKENS\tHOOK p50 ms\tTITLE")
		for _, s := range rep.PerSession[:n] {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%.0f\t%s\n", carryover.ShortID(s.ID), s.Updated.Local().Format("2006-01-02 15:04"),
				s.Turns, s.Compactions, s.Restores, s.Recalls, s.TokensInjected, s.HookP50MS, termsafe.Line(truncate(s.Title, 50)))
		}
		return tw.Flush()
	}
	if rep.Sessions == 0 {
		fmt.Fprintln(w, "\nno sessions archived yet: run 'carryover ingest --all' or 'carryover install'")
	}
	return nil
}

// statsByName renders counts by name, largest first: "aws-key 3, jwt 1".
func statsByName(m map[string]int) string {
	cs := make([]stats.Count, 0, len(m))
	for k, n := range m {
		cs = append(cs, stats.Count{Text: k, Count: n})
	}
	slices.SortFunc(cs, func(a, b stats.Count) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return strings.Compare(a.Text, b.Text)
	})
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s %d", c.Text, c.Count)
	}
	return strings.Join(parts, ", ")
}

// statsCounts renders the first n counts: "main.go (6), go.mod (2)".
func statsCounts(cs []stats.Count, n int) string {
	parts := make([]string, 0, n)
	for _, c := range cs[:min(n, len(cs))] {
		parts = append(parts, fmt.Sprintf("%s (%d)", termsafe.Line(truncate(c.Text, 45)), c.Count))
	}
	return strings.Join(parts, ", ")
}

func statsNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
