package config

import (
	"os"
	"path/filepath"
)

// Env is what the configuration is read from besides files: the
// environment and the operating system's idea of the user's directories.
// Zero fields mean the process's own (os.Getenv, os.UserHomeDir,
// os.UserCacheDir).
type Env struct {
	Getenv func(string) string
	// UserHomeDir and UserCacheDir are asked only when HOME (and the XDG
	// variable of a directory) is not an absolute path.
	UserHomeDir  func() (string, error)
	UserCacheDir func() (string, error)
}

func (e Env) getenv(key string) string {
	if e.Getenv == nil {
		return os.Getenv(key)
	}
	return e.Getenv(key)
}

// Home returns the user's home directory: HOME when it is absolute, else
// what the operating system says if that is absolute, else "". A relative
// HOME is ignored: paths under it would land wherever carryover runs,
// which for a hook is the project.
func (e Env) Home() string {
	if h := e.getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Clean(h)
	}
	f := e.UserHomeDir
	if f == nil {
		f = os.UserHomeDir
	}
	if h, err := f(); err == nil && filepath.IsAbs(h) {
		return filepath.Clean(h)
	}
	return ""
}

// Dirs are carryover's directories. Each is absolute, or "" when there is
// no absolute place for it.
type Dirs struct {
	Config string // $XDG_CONFIG_HOME/carryover, ~/.config/carryover
	Data   string // $XDG_DATA_HOME/carryover, ~/.local/share/carryover (the store)
	State  string // $XDG_STATE_HOME/carryover, ~/.local/state/carryover (the log, status line state)
}

// Dirs places carryover's directories from the XDG variables (absolute
// ones only, as the XDG spec says) or the home directory. Without a home,
// data and state go to the user cache directory when it is absolute; the
// user config file is then not read at all.
func (e Env) Dirs() Dirs {
	home := e.Home()
	cache := ""
	if home == "" {
		f := e.UserCacheDir
		if f == nil {
			f = os.UserCacheDir
		}
		if c, err := f(); err == nil && filepath.IsAbs(c) {
			cache = filepath.Join(filepath.Clean(c), "carryover")
		}
	}
	dir := func(env string, rel ...string) string {
		if d := e.getenv(env); filepath.IsAbs(d) {
			return filepath.Join(d, "carryover")
		}
		if home != "" {
			return filepath.Join(append(append([]string{home}, rel...), "carryover")...)
		}
		return cache
	}
	d := Dirs{
		Data:  dir("XDG_DATA_HOME", ".local", "share"),
		State: dir("XDG_STATE_HOME", ".local", "state"),
	}
	if c := e.getenv("XDG_CONFIG_HOME"); filepath.IsAbs(c) {
		d.Config = filepath.Join(c, "carryover")
	} else if home != "" {
		d.Config = filepath.Join(home, ".config", "carryover")
	}
	return d
}

// LogPath is the log file: CARRYOVER_LOG, else carryover.log in the state
// directory, or "" when there is no place for it.
func (e Env) LogPath() string {
	if p := e.getenv("CARRYOVER_LOG"); p != "" {
		return p
	}
	if d := e.Dirs().State; d != "" {
		return filepath.Join(d, "carryover.log")
	}
	return ""
}

// ClaudeProjects is where Claude Code keeps its transcripts:
// $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects.
func (e Env) ClaudeProjects() string {
	if d := e.getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, "projects")
	}
	return filepath.Join(e.Home(), ".claude", "projects")
}
