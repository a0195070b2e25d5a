package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/claudesettings"
	"github.com/carryover-dev/carryover/install"
	"github.com/carryover-dev/carryover/storeopen"
	"github.com/carryover-dev/carryover/termsafe"
)

func (a *app) cmdStatus(ctx context.Context, args []string) error {
	fl := a.newFlags("status")
	project := fl.String("project", "", "project directory whose settings are shown too (default: current directory)")
	if _, err := parseInterspersed(fl, args); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCOPE\tSETTINGS\tCARRYOVER HOOKS\tBINARY")
	for _, scope := range []string{"user", "project", "local"} {
		path, _, err := a.installTarget(scope, *project)
		if err != nil {
			return err
		}
		f, err := claudesettings.Load(path)
		switch {
		case err != nil:
			fmt.Fprintf(tw, "%s\t%s\terror: %v\t\n", scope, path, err)
			continue
		case !f.Exists():
			fmt.Fprintf(tw, "%s\t%s\t(no file)\t\n", scope, path)
			continue
		}
		ours := f.Ours()
		if len(ours) == 0 {
			fmt.Fprintf(tw, "%s\t%s\tnone\t\n", scope, path)
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
			prog, _ := splitCommand(h.Command)
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", scope, path, strings.Join(events, " "), strings.Join(binInfo, ", "))
	}
	tw.Flush()
	if err := a.statusMCP(*project); err != nil {
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
	tw = tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PROJECT\tSESSIONS\tUPDATED\tLAST HOOK RUN\tLAST RESTORE")
	for _, name := range order {
		p := projects[name]
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", termsafe.Line(a.shortPath(name)), p.sessions, p.updated,
			termsafe.Line(cmp.Or(p.hook, "never")), cmp.Or(p.restore, "never"))
	}
	return tw.Flush()
}

// statusMCP lists where carryover's MCP server is registered.
func (a *app) statusMCP(project string) error {
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\nSCOPE\tMCP SERVERS\tCARRYOVER MCP SERVER")
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
			fmt.Fprintf(tw, "%s\t%s\terror: %v\n", scope, where, err)
		case !ok:
			fmt.Fprintf(tw, "%s\t%s\tnone\n", scope, where)
		default:
			cmd := strings.Join(append([]string{srv.Command}, srv.Args...), " ")
			if _, ok := install.ResolveCommand(a.getenv, srv.Command); !ok {
				cmd += " (MISSING)"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", scope, where, cmd)
		}
	}
	return tw.Flush()
}
