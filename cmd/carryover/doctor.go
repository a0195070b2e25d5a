package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	conf "github.com/carryover-dev/carryover/config"
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
	failed := 0
	for _, c := range checks {
		if c.Status == doctor.Fail {
			failed++
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
	fmt.Fprintln(a.stdout, "all checks passed")
	return nil
}

// splitCommand returns the program of a hook command and the rest.
func splitCommand(cmd string) (string, string) { return install.SplitCommand(cmd) }

// printConfig shows the effective configuration and where each value
// came from.
func (a *app) printConfig(cfg config, dir string) {
	fmt.Fprintln(a.stdout)
	exists := func(path string) (string, bool) {
		if path == "" {
			return "(none)", false
		}
		if _, err := os.Stat(path); err != nil {
			return path + " (absent)", false
		}
		return path, true
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	fmt.Fprintf(a.stdout, "config (what a hook uses in %s):\n", dir)
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	user, _ := exists(cfg.UserFile)
	fmt.Fprintf(tw, "  user file\t%s\n", user)
	project, ok := exists(cfg.ProjectFile)
	switch {
	case ok && cfg.ProjectTrusted:
		project += " (in trusted_projects: every key applies)"
	case ok:
		project += " (not in trusted_projects: only " + strings.Join(conf.ProjectKeys(), ", ") + " apply)"
	}
	fmt.Fprintf(tw, "  project file\t%s\n", project)
	for _, s := range cfg.Settings() {
		var from []string
		for _, src := range s.Sources {
			from = append(from, src.String())
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", s.Key, s.Value, strings.Join(from, ", "))
	}
	tw.Flush()
}
