package main

import (
	"fmt"
	"os"

	conf "github.com/carryover-dev/carryover/config"
	"github.com/carryover-dev/carryover/logfile"
)

// config is carryover's configuration, read by package config.
type config = conf.Config

func (a *app) configEnv() conf.Env { return conf.Env{Getenv: a.getenv} }

// loadConfig reads the configuration that applies in project directory dir
// ("" for none) and sets up its redactor. Its problems go to the log and,
// unless a.quietConfig (hooks, the status line, doctor), to stderr. The
// error is conf.ErrNoStore.
func (a *app) loadConfig(dir string) (config, error) {
	a.logMu.Lock()
	defer a.logMu.Unlock()
	if dir != "" {
		a.projectDir = dir
	}
	cfg, err := conf.Load(conf.Options{Env: a.configEnv(), ProjectDir: dir, ClaudeDir: claudeDir(a.getenv),
		DBFlag: a.dbFlag, Redactor: a.builtinRedactor()})
	for _, p := range cfg.Problems {
		a.log.Warn("config problem", "problem", p.String())
		if !a.quietConfig {
			fmt.Fprintf(a.stderr, "carryover: warning: %s\n", p)
		}
	}
	a.redactor = cfg.Redactor
	a.maskLog(cfg.Redactor)
	if err != nil {
		return cfg, fmt.Errorf("config: %w", err)
	}
	return cfg, nil
}

// logPath is the log file, or "" when there is no absolute place for it.
// Under Claude Code, what the project's settings set in the environment
// does not choose it (see conf.Env.LogPathFor and claudeDir).
func logPath(getenv func(string) string) string {
	return logPathIn(getenv, claudeDir(getenv))
}

// claudeDir is the project Claude Code runs this process in ("" for
// none), whose settings may have set its environment: CLAUDE_PROJECT_DIR,
// which Claude Code gives hooks, else the working directory of a process
// Claude Code started (CLAUDECODE: its Bash tool, where a repository's
// instructions can make the model run carryover).
func claudeDir(getenv func(string) string) string {
	dir := getenv("CLAUDE_PROJECT_DIR")
	if dir == "" && getenv("CLAUDECODE") != "" {
		dir, _ = os.Getwd()
	}
	return dir
}

// logPathIn is logPath for a process run in project directory dir.
func logPathIn(getenv func(string) string, dir string) string {
	return conf.Env{Getenv: getenv}.LogPathFor(dir)
}

// maxLogBytes caps the log; the previous log is kept as .1.
const maxLogBytes = logfile.MaxBytes

// openLogFile opens the log for appending (see logfile.Open).
func openLogFile(path string) (*os.File, error) { return logfile.Open(path) }
