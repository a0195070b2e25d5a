package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	conf "github.com/carryover-dev/carryover/config"
)

// config is carryover's configuration, read by package config.
type config = conf.Config

func (a *app) configEnv() conf.Env { return conf.Env{Getenv: a.getenv} }

func defaultConfig(getenv func(string) string) config {
	return conf.Defaults(conf.Env{Getenv: getenv})
}

// loadConfig reads the configuration that applies in project directory dir
// ("" for none) and sets up its redactor. Its problems go to the log and,
// unless a.quietConfig (hooks, the status line, doctor), to stderr. The
// error is conf.ErrNoStore.
func (a *app) loadConfig(dir string) (config, error) {
	cfg, err := conf.Load(conf.Options{Env: a.configEnv(), ProjectDir: dir, DBFlag: a.dbFlag})
	for _, p := range cfg.Problems {
		a.log.Warn("config problem", "problem", p.String())
		if !a.quietConfig {
			fmt.Fprintf(a.stderr, "carryover: warning: %s\n", p)
		}
	}
	a.redactor = cfg.Redactor
	if err != nil {
		return cfg, fmt.Errorf("config: %w", err)
	}
	return cfg, nil
}

// homeDir is the user's home directory, absolute, or "".
func homeDir(getenv func(string) string) string {
	return conf.Env{Getenv: getenv}.Home()
}

// logPath is the log file, or "" when there is no absolute place for it.
func logPath(getenv func(string) string) string {
	return conf.Env{Getenv: getenv}.LogPath()
}

// maxLogBytes caps the log; the previous log is kept as .1.
const maxLogBytes = 1 << 20

// openLogFile opens the log for appending, rotating it when too big. It
// refuses to write through a symlink.
func openLogFile(path string) (*os.File, error) {
	if path == "" {
		return nil, errors.New("no place for the log: set HOME or XDG_STATE_HOME to an absolute path, or CARRYOVER_LOG")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSymlink != 0 || !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("log %s is not a regular file", path)
		}
		if fi.Size() > maxLogBytes {
			_ = os.Rename(path, path+".1")
		}
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|noFollow, 0o600)
}
