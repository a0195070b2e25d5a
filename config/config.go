// Package config reads carryover's configuration: defaults, then the
// user's config file, then the project's .carryover.toml, then CARRYOVER_*
// environment variables, then the --db flag. It records where each value
// came from and every problem met on the way (a key that is unknown, of the
// wrong type, or refused), each with its file and line.
//
// A project's .carryover.toml comes with the repository it sits in, so it
// may set only keys that cannot send the archive elsewhere, make carryover
// read or write a file it names, or weaken redaction: the budgets, recall,
// startup_brief, compact_instructions and extra redact patterns. Every other
// key comes from the user's own config or the environment, unless the
// user's config names the project in trusted_projects.
package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/carryover-dev/carryover/redact"
)

// HookOutputCap is the most characters of a hook's output Claude Code
// gives the model; HookContextMax is what carryover's hooks cut their
// context to, under it (package hook's MaxContext). A budget above the cap
// draws a warning.
const (
	HookOutputCap  = 10_000
	HookContextMax = 9000
)

// Bounds of values: a project may set the budgets, and each of them is
// text injected into a session.
const (
	maxBudget       = 100_000 // characters of a restore or a recall
	maxInstructions = 4_000   // characters of compact_instructions, per file
	maxPatterns     = 200     // extra redaction patterns, inline and from the file
	maxPatternBytes = 1 << 10 // one inline pattern
	// maxTimeout bounds hook_timeout and session_end_timeout: Claude Code
	// itself gives a hook 600 s by default.
	maxTimeout = 10 * time.Minute
)

// ErrNoStore is returned by Load when the store has no absolute place: no
// absolute HOME, XDG_DATA_HOME or user cache directory, and no store given
// by a file, CARRYOVER_DB or --db. A relative default would put the store
// in whatever directory carryover runs in, for a hook the project.
var ErrNoStore = errors.New("no place for the store: neither HOME nor XDG_DATA_HOME is an absolute path;" +
	" set one of them, or choose the store with --db or CARRYOVER_DB")

// Config is carryover's effective configuration.
type Config struct {
	DB                string        // the SQLite store (with DatabaseURL, the hooks' local spool)
	Budget            int           // restore budget in characters
	RecallBudget      int           // UserPromptSubmit recall budget in characters
	Recall            bool          // inject recall hits on UserPromptSubmit
	StartupBrief      bool          // SessionStart(startup): brief of the project's last session
	HookTimeout       time.Duration // deadline of every hook but SessionEnd
	SessionEndTimeout time.Duration
	// CompactInstructions is text appended to what PreCompact gives the
	// summariser: the user's, then the project's.
	CompactInstructions string
	// DatabaseURL, when set, selects the PostgreSQL server; DB is then the
	// local spool for when the server cannot be reached.
	DatabaseURL string
	Owner       string // identity written on server rows ("" for the OS user)
	Team        string // team new rows are shared with ("" for private)
	// RedactPatterns is a file of extra secret patterns, one regexp per
	// line, masked like the built-in detectors.
	RedactPatterns string
	// Redact holds the inline extra patterns of the user's and the
	// project's files (only the valid ones).
	Redact []string
	// Redactor masks secrets: the built-in detectors, Redact and the
	// patterns of RedactPatterns.
	Redactor *redact.Redactor
	// TrustedProjects are the project directories, absolute and exact
	// (not their subdirectories), whose .carryover.toml may set any key.
	TrustedProjects []string

	Log  string // the log file, "" when there is no place for it
	Dirs Dirs

	UserFile       string // the user's config file ("" without a config directory), read if it exists
	ProjectFile    string // the project's .carryover.toml ("" without a project), read if it exists
	ProjectTrusted bool   // the project is in TrustedProjects

	// Sources says where each setting's value came from, by key: the one
	// layer that set it last, or each layer that added to redact and
	// compact_instructions.
	Sources map[string][]Source
	// Problems lists what was ignored, in the order met. Hooks log them;
	// the CLI and doctor print them.
	Problems []Problem

	patterns []redact.Pattern // compiled Redact
}

// Layer is where a value can come from, in the order they apply.
type Layer int

const (
	Default Layer = iota
	UserFile
	ProjectFile
	Environment
	Flag
)

// Source is where a value came from.
type Source struct {
	Layer Layer
	File  string // UserFile and ProjectFile (and a patterns file, for problems)
	Line  int    // 0 for the file as a whole
	Env   string // Environment: the variable
}

func (s Source) String() string {
	switch s.Layer {
	case UserFile:
		return "user " + s.where()
	case ProjectFile:
		return "project " + s.where()
	case Environment:
		return "env " + s.Env
	case Flag:
		return "flag --db"
	}
	return "default"
}

// where is a file:line, a file, or an environment variable.
func (s Source) where() string {
	switch {
	case s.Layer == Environment:
		return "env " + s.Env
	case s.Line > 0:
		return s.File + ":" + strconv.Itoa(s.Line)
	}
	return s.File
}

// Problem is a file, key or value that was ignored.
type Problem struct {
	Source
	Key     string // "" for a whole file
	Msg     string
	Refused bool // a key the project's file may not set
}

func (p Problem) String() string {
	if p.Refused {
		return fmt.Sprintf("%s set in %s, ignored: %s", p.Key, p.where(), p.Msg)
	}
	var b strings.Builder
	for _, part := range []string{p.where(), p.Key, p.Msg} {
		if part != "" {
			if b.Len() > 0 {
				b.WriteString(": ")
			}
			b.WriteString(part)
		}
	}
	return b.String()
}

// Options say what to load.
type Options struct {
	Env Env
	// ProjectDir is the project whose .carryover.toml applies ("" for
	// none); for a hook, the directory Claude Code gives it.
	ProjectDir string
	// ClaudeDir, when ProjectDir is "", is the project whose Claude Code
	// settings may have set the environment (a command Claude Code ran
	// there): their env is guarded as for ProjectDir, and no
	// .carryover.toml is read.
	ClaudeDir string
	DBFlag    string // --db
	// Redactor, when not nil, is a redactor with the built-in detectors
	// alone for the configuration to use unless patterns are configured:
	// the caller's own (its log's), rather than one more built.
	Redactor *redact.Redactor
}

// Defaults is the configuration without files, environment or flags. Its
// DB is "" when there is no absolute place for the store.
func Defaults(env Env) Config { return defaults(env, nil) }

// defaults is Defaults with the redactor red, or a new one when nil.
func defaults(env Env, red *redact.Redactor) Config {
	if red == nil {
		red = redact.New(redact.Options{})
	}
	c := Config{
		Budget:            4000,
		RecallBudget:      2000,
		Recall:            true,
		HookTimeout:       2 * time.Second,
		SessionEndTimeout: time.Second,
		Dirs:              env.Dirs(),
		Redactor:          red,
		Sources:           map[string][]Source{},
	}
	if c.Dirs.Data != "" {
		c.DB = filepath.Join(c.Dirs.Data, "carryover.db")
	}
	for _, k := range keyTable() {
		if k.record == "" {
			c.Sources[k.name] = []Source{{Layer: Default}}
		}
	}
	setLog(&c, env)
	return c
}

// Load reads the configuration that applies in opt.ProjectDir. Problems
// are in the result, never an error; the error is ErrNoStore.
func Load(opt Options) (Config, error) {
	project := opt.ProjectDir
	if project == "" {
		project = opt.ClaudeDir
	}
	if project == "" {
		return load(opt)
	}
	// The project's Claude Code settings may set sensitive variables for
	// the hooks (see claudeenv.go): they are hidden unless the project is
	// trusted, which only the user's own file can say.
	dir, err := filepath.Abs(project)
	if err != nil {
		return load(opt)
	}
	genv, hidden, unknown := projectEnvGuard(opt.Env, dir)
	if len(hidden) == 0 {
		return load(opt)
	}
	g := opt
	g.Env = genv
	c, err := load(g)
	if c.ProjectTrusted || c.Trusts(dir) {
		// Even a trusted project does not choose the log: see LogPathFor.
		c, err = load(opt)
		setLog(&c, genv)
		for _, k := range hidden {
			if k == "CARRYOVER_LOG" || k == "XDG_STATE_HOME" {
				c.Problems = append(c.Problems, Problem{Source: Source{Layer: Environment, Env: k}, Key: k,
					Msg: errLogGuarded.Error(), Refused: true})
			}
		}
		return c, err
	}
	msg := errGuarded.Error()
	if unknown {
		msg = errUnchecked.Error()
	}
	for _, k := range hidden {
		c.Problems = append(c.Problems, Problem{Source: Source{Layer: Environment, Env: k}, Key: k,
			Msg: msg, Refused: true})
	}
	return c, err
}

// setLog places the log as env says.
func setLog(c *Config, env Env) {
	c.Log = env.LogPath()
	c.Sources["log"] = []Source{{Layer: Default}}
	if filepath.IsAbs(env.getenv("CARRYOVER_LOG")) {
		c.Sources["log"] = []Source{{Layer: Environment, Env: "CARRYOVER_LOG"}}
	}
}

func load(opt Options) (Config, error) {
	c := defaults(opt.Env, opt.Redactor)
	l := loader{c: &c, home: opt.Env.Home(), keys: keyTable()}
	if c.Dirs.Config != "" {
		c.UserFile = filepath.Join(c.Dirs.Config, "config.toml")
		l.file(UserFile, c.UserFile)
	}
	if opt.ProjectDir != "" {
		dir, err := filepath.Abs(opt.ProjectDir)
		if err != nil {
			l.problem(Problem{Source: Source{Layer: ProjectFile, File: opt.ProjectDir}, Msg: err.Error()})
		} else {
			c.ProjectFile = filepath.Join(dir, ".carryover.toml")
			l.file(ProjectFile, c.ProjectFile)
		}
	}
	for _, k := range l.keys {
		if k.env == "" {
			continue
		}
		if v := opt.Env.getenv(k.env); v != "" {
			l.apply(k, v, Source{Layer: Environment, Env: k.env})
		}
	}
	if opt.DBFlag != "" {
		c.DB = opt.DBFlag
		c.Sources["db"] = []Source{{Layer: Flag}}
	}
	l.redactor()
	if c.DB == "" {
		return c, ErrNoStore
	}
	return c, nil
}

// Trusts reports whether dir is one of TrustedProjects: the same
// directory, by name or by identity (reached through a symbolic link). A
// subdirectory of a trusted project is not trusted: it may be another
// repository.
func (c *Config) Trusts(dir string) bool {
	dir = filepath.Clean(dir)
	var fi os.FileInfo
	for _, t := range c.TrustedProjects {
		if t == dir {
			return true
		}
		if fi == nil {
			var err error
			if fi, err = os.Stat(dir); err != nil {
				return false
			}
		}
		if ti, err := os.Stat(t); err == nil && os.SameFile(fi, ti) {
			return true
		}
	}
	return false
}

// Setting is one effective value, as doctor shows it.
type Setting struct {
	Key     string
	Value   string
	Sources []Source
}

// Settings lists the effective values with their sources, in the order of
// the README's table. Secrets in database_url are masked.
func (c *Config) Settings() []Setting {
	var out []Setting
	for _, k := range keyTable() {
		if k.record != "" {
			continue
		}
		out = append(out, Setting{Key: k.name, Value: c.show(k.name), Sources: c.Sources[k.name]})
	}
	return append(out, Setting{Key: "log", Value: orNone(c.Log), Sources: c.Sources["log"]})
}

func (c *Config) show(key string) string {
	switch key {
	case "db":
		return orNone(c.DB)
	case "budget":
		return strconv.Itoa(c.Budget)
	case "recall":
		return strconv.FormatBool(c.Recall)
	case "recall_budget":
		return strconv.Itoa(c.RecallBudget)
	case "startup_brief":
		return strconv.FormatBool(c.StartupBrief)
	case "compact_instructions":
		if c.CompactInstructions == "" {
			return "(none)"
		}
		s := strings.ReplaceAll(c.CompactInstructions, "\n", " ")
		if r := []rune(s); len(r) > 60 {
			s = string(r[:60]) + "…"
		}
		return strconv.Quote(s)
	case "redact":
		return fmt.Sprintf("%d pattern(s)", len(c.Redact))
	case "hook_timeout":
		return c.HookTimeout.String()
	case "session_end_timeout":
		return c.SessionEndTimeout.String()
	case "database_url":
		if u, err := url.Parse(c.DatabaseURL); err == nil && c.DatabaseURL != "" {
			return u.Redacted()
		}
		return orNone(c.DatabaseURL)
	case "owner":
		return orNone(c.Owner)
	case "team":
		return orNone(c.Team)
	case "redact_patterns":
		return orNone(c.RedactPatterns)
	case "trusted_projects":
		if len(c.TrustedProjects) == 0 {
			return "(none)"
		}
		return strings.Join(c.TrustedProjects, ", ")
	}
	return ""
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// ProjectKeys are the keys a project's .carryover.toml may set without
// being in trusted_projects.
func ProjectKeys() []string {
	var out []string
	for _, k := range keyTable() {
		if k.project {
			out = append(out, k.name)
		}
	}
	return out
}
