package main

import (
	"context"
	"fmt"
	"path/filepath"
	"text/tabwriter"

	"github.com/carryover-dev/carryover/doctor"
	"github.com/carryover-dev/carryover/install"
)

func (a *app) cmdDoctor(ctx context.Context, args []string) error {
	fl := a.newFlags("doctor")
	project := fl.String("project", "", "project directory whose settings are checked too (default: current directory)")
	if _, err := parseInterspersed(fl, args); err != nil {
		return err
	}
	// The config a hook would use in the project: its problems are
	// checks, its values and sources follow them.
	dir := *project
	if dir == "" {
		dir = cwd()
	}
	a.quietConfig = true
	cfg, cfgErr := a.loadConfig(dir)
	checks, err := doctor.Run(ctx, doctor.Options{Installer: a.installer(), Project: *project,
		Config: cfg, ConfigErr: cfgErr, Sample: demoSession})
	if err != nil {
		return cliErr(err)
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	failed, warned := 0, 0
	for _, c := range checks {
		switch c.Status {
		case doctor.Fail:
			failed++
		case doctor.Warn:
			warned++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Status, c.Name, c.Detail)
		if c.Fix != "" && c.Status != doctor.Pass {
			fmt.Fprintf(tw, "\t\thint: %s\n", c.Fix)
		}
	}
	tw.Flush()
	a.printConfig(cfg, dir)
	if failed > 0 {
		return fmt.Errorf("%d check(s) failed", failed)
	}
	if warned > 0 {
		// Not "all is well": a warning can be Claude Code missing.
		fmt.Fprintf(a.stdout, "no check failed; %d warning(s) above\n", warned)
		return nil
	}
	fmt.Fprintln(a.stdout, "all checks passed")
	return nil
}

// splitCommand returns the program of a hook command and the rest.
func splitCommand(cmd string) (string, string) { return install.SplitCommand(cmd) }

// printConfig shows the effective configuration and where each value
// came from.
func (a *app) printConfig(cfg config, dir string) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	fmt.Fprintf(a.stdout, "\nconfig (what a hook uses in %s):\n", dir)
	r := doctor.DescribeConfig(cfg)
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "  user file\t%s\n  project file\t%s\n", r.UserFile, r.ProjectFile)
	for _, s := range r.Settings {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", s.Key, s.Value, s.From)
	}
	tw.Flush()
}
