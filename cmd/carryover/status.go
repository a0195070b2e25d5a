package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/claudesettings"
	"github.com/carryover-dev/carryover/install"
	"github.com/carryover-dev/carryover/storeopen"
	"github.com/carryover-dev/carryover/termsafe"
)

func (a *app) cmdStatus(ctx context.Context, args []string) error {
	fl := a.newFlags("status")
	project := fl.String("project", "", "project directory whose settings are shown too (default: current directory)")
	wide := fl.Bool("wide", false, "do not cut the tables to the terminal's width (COLUMNS)")
	if _, err := parseInterspersed(fl, args); err != nil {
		return err
	}
	width := a.termWidth(*wide)
	tw := newTable(column{Name: "SCOPE"}, column{Name: "SETTINGS", Min: 16, Left: true}, column{Name: "CARRYOVER HOOKS", Min: 16},
		column{Name: "BINARY", Min: 12, Left: true})
	for _, scope := range []string{"user", "project", "local"} {
		path, _, err := a.installTarget(scope, *project)
		if err != nil {
			return err
		}
		f, err := claudesettings.Load(path)
		switch {
		case err != nil:
			tw.add(scope, path, fmt.Sprintf("error: %v", err))
			continue
		case !f.Exists():
			tw.add(scope, path, "(no file)")
			continue
		}
		ours := f.Ours()
		if len(ours) == 0 {
			tw.add(scope, path, "none")
			continue
		}
		var events []string
		bins := map[string]bool{}
		for _, h := range ours {
			ev := h.Event
			if h.Matcher != "" && h.Matcher != "*" {
				ev += "(" + h.Matcher + ")"
			}
			events = append(events, ev)
			prog := h.Command // exec form: the program itself, spaces and all
			if !h.Exec() {
				prog, _ = splitCommand(h.Command)
			}
			bins[prog] = true
		}
		var binInfo []string
		for b := range bins {
			if _, ok := install.ResolveCommand(a.getenv, b); !ok {
				binInfo = append(binInfo, b+" (MISSING)")
			} else {
				binInfo = append(binInfo, b)
			}
		}
		tw.add(scope, path, fmt.Sprintf("%d: %s", len(events), strings.Join(events, " ")), strings.Join(binInfo, ", "))
	}
	if err := tw.write(a.stdout, width); err != nil {
		return err
	}
	if err := a.statusMCP(*project, width); err != nil {
		return err
	}

	cfg, err := a.loadConfig("")
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "\nstore: %s", cfg.DB)
	fi, err := os.Stat(cfg.DB)
	if err != nil {
		fmt.Fprintf(a.stdout, " (not created yet)\n")
		return nil
	}
	fmt.Fprintf(a.stdout, " (%.1f MB)\n", float64(fi.Size())/(1<<20))
	st, err := storeopen.Local(ctx, cfg.DB, storeopen.LocalOptions{ReadOnly: true})
	if err != nil {
		return storeErr(err)
	}
	defer st.Close()
	// Subagents count with their session, as in 'carryover sessions'.
	sessions, err := st.Sessions(ctx, carryover.SessionFilter{TopLevel: true})
	if err != nil {
		return err
	}
	ins, err := st.Injections(ctx, "", 500)
	if err != nil {
		return err
	}
	runs, err := st.HookRuns(ctx, carryover.HookRunFilter{Limit: 2000})
	if err != nil {
		return err
	}
	// updated is the newest archived activity of the project's sessions,
	// whoever archived it (a hook or 'carryover ingest'); hook is the last
	// time a hook ran for it.
	type proj struct {
		sessions int
		updated  string
		hook     string
		restore  string
	}
	projects := map[string]*proj{}
	var order []string
	for _, s := range sessions {
		p := projects[s.Project]
		if p == nil {
			p = &proj{updated: s.Updated.Local().Format("2006-01-02 15:04")}
			projects[s.Project] = p
			order = append(order, s.Project)
		}
		p.sessions++
	}
	for _, r := range runs {
		if p := projects[r.Project]; p != nil && p.hook == "" {
			p.hook = fmt.Sprintf("%s %s (%s)", r.Time.Local().Format("2006-01-02 15:04"), r.Event, r.Outcome)
		}
	}
	for _, in := range ins {
		if p := projects[in.Project]; p != nil && p.restore == "" && strings.HasPrefix(in.Event, "SessionStart") {
			p.restore = in.Time.Local().Format("2006-01-02 15:04")
		}
	}
	if len(order) == 0 {
		fmt.Fprintln(a.stdout, "no sessions archived yet")
		return nil
	}
	pt := newTable(column{Name: "PROJECT", Min: 16, Left: true}, column{Name: "SESSIONS", Right: true}, column{Name: "UPDATED"},
		column{Name: "LAST HOOK RUN", Min: 16}, column{Name: "LAST RESTORE"})
	for _, name := range order {
		p := projects[name]
		pt.add(termsafe.Line(a.shortPath(name)), fmt.Sprint(p.sessions), p.updated,
			termsafe.Line(cmp.Or(p.hook, "never")), cmp.Or(p.restore, "never"))
	}
	return pt.write(a.stdout, width)
}

// statusMCP lists where carryover's MCP server is registered.
func (a *app) statusMCP(project string, width int) error {
	fmt.Fprintln(a.stdout)
	tw := newTable(column{Name: "SCOPE"}, column{Name: "MCP SERVERS", Min: 16, Left: true}, column{Name: "CARRYOVER MCP SERVER", Min: 20, Left: true})
	for _, scope := range []string{"user", "project", "local"} {
		_, proj, err := a.installTarget(scope, project)
		if err != nil {
			return err
		}
		t, err := a.mcpTarget(scope, proj)
		if err != nil {
			return err
		}
		where := t.Path
		if len(t.At) > 0 {
			where += " (" + strings.Join(t.At, " → ") + ")"
		}
		srv, ok, err := install.RegisteredMCP(t)
		switch {
		case err != nil:
			tw.add(scope, where, fmt.Sprintf("error: %v", err))
		case !ok:
			tw.add(scope, where, "none")
		default:
			cmd := strings.Join(append([]string{srv.Command}, srv.Args...), " ")
			if _, ok := install.ResolveCommand(a.getenv, srv.Command); !ok {
				cmd += " (MISSING)"
			}
			tw.add(scope, where, cmd)
		}
	}
	return tw.write(a.stdout, width)
}
