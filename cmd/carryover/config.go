package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// config is carryover's configuration: defaults, then the user config file,
// then the project's .carryover.toml, then environment variables, then flags.
type config struct {
	DB                string
	Budget            int           // restore budget in characters
	RecallBudget      int           // UserPromptSubmit recall budget in characters
	Recall            bool          // inject recall hits on UserPromptSubmit
	StartupBrief      bool          // SessionStart(startup): brief of the project's last session
	HookTimeout       time.Duration // deadline of every hook but SessionEnd
	SessionEndTimeout time.Duration
	// DatabaseURL, when set, selects the PostgreSQL server (see server.go);
	// DB is then the local spool for when the server cannot be reached.
	DatabaseURL string
	Owner       string // identity written on server rows ("" for the OS user)
	Team        string // team new rows are shared with ("" for private)
	// RedactPatterns is a file of extra secret patterns, one regexp per
	// line, masked like the built-in detectors.
	RedactPatterns string
	// Problems lists config lines that were ignored; hooks ignore them, the
	// CLI prints them.
	Problems []string
}

func defaultConfig(getenv func(string) string) config {
	return config{
		DB:                filepath.Join(dataDir(getenv), "carryover.db"),
		Budget:            4000,
		RecallBudget:      2000,
		Recall:            true,
		HookTimeout:       2 * time.Second,
		SessionEndTimeout: time.Second,
	}
}

// loadConfig reads the configuration that applies in project directory dir
// ("" for none).
func (a *app) loadConfig(dir string) config {
	cfg := defaultConfig(a.getenv)
	cfg.readFile(filepath.Join(configDir(a.getenv), "config.toml"))
	if dir != "" {
		cfg.readFile(filepath.Join(dir, ".carryover.toml"))
	}
	for key, env := range map[string]string{
		"db": "CARRYOVER_DB", "budget": "CARRYOVER_BUDGET", "budget_tokens": "CARRYOVER_BUDGET_TOKENS",
		"recall": "CARRYOVER_RECALL", "recall_budget": "CARRYOVER_RECALL_BUDGET", "startup_brief": "CARRYOVER_STARTUP_BRIEF",
		"hook_timeout": "CARRYOVER_HOOK_TIMEOUT", "session_end_timeout": "CARRYOVER_SESSION_END_TIMEOUT",
		"database_url": "CARRYOVER_DATABASE_URL", "owner": "CARRYOVER_OWNER", "team": "CARRYOVER_TEAM",
		"redact_patterns": "CARRYOVER_REDACT_PATTERNS",
	} {
		if v := a.getenv(env); v != "" {
			cfg.set(key, v, env)
		}
	}
	if a.dbFlag != "" {
		cfg.DB = a.dbFlag
	}
	a.redactor = cfg.loadRedactor()
	return cfg
}

// readFile applies a flat TOML file: key = value lines, # comments.
func (c *config) readFile(path string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "[") {
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok {
			c.Problems = append(c.Problems, fmt.Sprintf("%s:%d: not key = value", path, n))
			continue
		}
		val = strings.TrimSpace(val)
		if i := strings.Index(val, " #"); i >= 0 && !strings.HasPrefix(val, `"`) {
			val = strings.TrimSpace(val[:i])
		}
		if uq, err := strconv.Unquote(val); err == nil {
			val = uq
		}
		c.set(strings.TrimSpace(key), val, fmt.Sprintf("%s:%d", path, n))
	}
}

func (c *config) set(key, val, where string) {
	bad := func(err error) {
		c.Problems = append(c.Problems, fmt.Sprintf("%s: %s: %v", where, key, err))
	}
	atoi := func() (int, bool) {
		n, err := strconv.Atoi(val)
		if err != nil || n <= 0 {
			bad(fmt.Errorf("want a positive integer, got %q", val))
			return 0, false
		}
		return n, true
	}
	dur := func() (time.Duration, bool) {
		d, err := time.ParseDuration(val)
		if err != nil {
			if n, err2 := strconv.ParseFloat(val, 64); err2 == nil {
				d, err = time.Duration(n*float64(time.Second)), nil
			}
		}
		if err != nil || d <= 0 {
			bad(fmt.Errorf("want a duration such as 2s, got %q", val))
			return 0, false
		}
		return d, true
	}
	switch key {
	case "db", "database":
		c.DB = expandHome(val)
	case "budget":
		if n, ok := atoi(); ok {
			c.Budget = n
		}
	case "budget_tokens":
		if n, ok := atoi(); ok {
			c.Budget = n * 4
		}
	case "recall_budget":
		if n, ok := atoi(); ok {
			c.RecallBudget = n
		}
	case "recall":
		b, err := strconv.ParseBool(val)
		if err != nil {
			bad(err)
			return
		}
		c.Recall = b
	case "startup_brief":
		b, err := strconv.ParseBool(val)
		if err != nil {
			bad(err)
			return
		}
		c.StartupBrief = b
	case "hook_timeout":
		if d, ok := dur(); ok {
			c.HookTimeout = d
		}
	case "session_end_timeout":
		if d, ok := dur(); ok {
			c.SessionEndTimeout = d
		}
	case "database_url":
		c.DatabaseURL = val
	case "owner":
		c.Owner = val
	case "team":
		c.Team = val
	case "redact_patterns":
		p := expandHome(val)
		if p != "" && !filepath.IsAbs(p) {
			bad(fmt.Errorf("want an absolute path (or ~/...), got %q", val))
			return
		}
		c.RedactPatterns = p
	default:
		c.Problems = append(c.Problems, fmt.Sprintf("%s: unknown key %q", where, key))
	}
}

func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}

func homeDir(getenv func(string) string) string {
	if h := getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

func xdgDir(getenv func(string) string, env, fallback string) string {
	if d := getenv(env); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "carryover")
	}
	return filepath.Join(homeDir(getenv), fallback, "carryover")
}

func dataDir(getenv func(string) string) string {
	return xdgDir(getenv, "XDG_DATA_HOME", filepath.Join(".local", "share"))
}

func configDir(getenv func(string) string) string {
	return xdgDir(getenv, "XDG_CONFIG_HOME", ".config")
}

func logPath(getenv func(string) string) string {
	if p := getenv("CARRYOVER_LOG"); p != "" {
		return p
	}
	return filepath.Join(xdgDir(getenv, "XDG_STATE_HOME", filepath.Join(".local", "state")), "carryover.log")
}

// maxLogBytes caps the log; the previous log is kept as .1.
const maxLogBytes = 1 << 20

// openLogFile opens the log for appending, rotating it when too big. It
// refuses to write through a symlink.
func openLogFile(path string) (*os.File, error) {
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
