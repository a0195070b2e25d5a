package main

import (
	"context"
	"fmt"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/exportfile"
	"github.com/carryover-dev/carryover/internal/progress"
	"github.com/carryover-dev/carryover/termsafe"
)

func (a *app) cmdExport(ctx context.Context, args []string) error {
	fl := a.newFlags("export")
	project := fl.String("project", "", "only sessions of this project: its directory, or any path inside it (\".\" for the current one)")
	session := fl.String("session", "", "only this session, with its subagents (id or unique prefix)")
	output := fl.String("o", "", "write the export to this file (default: standard output)")
	pos, err := parseInterspersed(fl, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErr{fmt.Sprintf("export: unexpected argument %q", pos[0])}
	}
	_, st, err := a.readStore(ctx, "", false)
	if err != nil {
		return err
	}
	defer st.Close()
	if *project != "" {
		if *project, err = resolveProject(ctx, st, *project); err != nil {
			return err
		}
	}

	var one *carryover.Session
	if *session != "" {
		s, err := findSession(ctx, st, *session)
		if err != nil {
			return err
		}
		one = &s
	}
	sessions, err := exportfile.Sessions(ctx, st, one, *project)
	if err != nil {
		return err
	}
	bar := progress.New(a.stderr, int64(len(sessions)), "export")
	opt := exportfile.WriteOptions{Sessions: sessions, Orphans: *session == "",
		Project: *project, Redactor: a.redactor, Carryover: versionString(),
		Progress: func(int) { bar.Add(1) }}
	var n exportfile.Counts
	if *output != "" && *output != "-" {
		n, err = exportfile.WriteFile(ctx, *output, st, opt)
	} else if progress.IsTerminal(a.stdout) {
		// JSON leaves C1 controls and bidirectional overrides raw, and
		// a terminal acts on them.
		tw := termsafe.NewJSONLines(a.stdout)
		n, err = exportfile.WriteBuffered(ctx, tw, st, opt)
		if ferr := tw.Flush(); err == nil {
			err = ferr
		}
	} else {
		n, err = exportfile.WriteBuffered(ctx, a.stdout, st, opt)
	}
	bar.Done()
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	w := a.stderr
	if *output != "" && *output != "-" {
		w = a.stdout
	}
	fmt.Fprintf(w, "exported %s: %s, %s, %s, %s, %s\n", plural(n.Sessions, "session"), plural(n.Chunks, "chunk"),
		plural(n.Items, "item"), plural(n.Compactions, "compaction"), plural(n.Injections, "injection"), plural(n.Notes, "note"))
	if total := sumCounts(n.Masked); total > 0 {
		fmt.Fprintf(w, "masked %s\n", plural(total, "secret"))
	}
	return nil
}

func sumCounts(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
