package config

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
)

// Env is what the configuration is read from besides files: the
// environment and the system's record of the account's home directory.
// Zero fields mean the process's own (os.Getenv, AccountHome, and the
// user cache directory the environment names).
type Env struct {
	Getenv func(string) string
	// AccountHome is asked when the project's Claude Code settings set
	// HOME (see projectEnvGuard): the home directory the system records
	// for the account, which no environment can move.
	AccountHome func() (string, error)
	// UserCacheDir is asked only when there is no home at all.
	UserCacheDir func() (string, error)

	// homeHidden is set when the project's settings set the home
	// directory's variable: Home is then the account's.
	homeHidden bool
}

func (e Env) getenv(key string) string {
	if e.Getenv == nil {
		return os.Getenv(key)
	}
	return e.Getenv(key)
}

// AccountHome returns the home directory the system's user database
// records for the account carryover runs as: the password database by
// user id on Unix (pure Go in a static binary), the profile directory of
// the process's token on Windows. Unlike os.UserHomeDir it reads no
// environment variable (HOME, USERPROFILE), which a project's settings can
// set.
func AccountHome() (string, error) {
	var u *user.User
	var err error
	if uid := os.Getuid(); uid >= 0 {
		// Not user.Current: without cgo it falls back to $HOME when the
		// account is not in /etc/passwd.
		u, err = user.LookupId(strconv.Itoa(uid))
	} else {
		u, err = user.Current() // Windows: the token's profile, not %USERPROFILE%
	}
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(u.HomeDir) {
		return "", fmt.Errorf("the account's home directory %q is not absolute", u.HomeDir)
	}
	return filepath.Clean(u.HomeDir), nil
}

func (e Env) accountHome() string {
	f := e.AccountHome
	if f == nil {
		f = AccountHome
	}
	if h, err := f(); err == nil && filepath.IsAbs(h) {
		return filepath.Clean(h)
	}
	return ""
}

// Home returns the user's home directory: HOME when it is absolute (on
// Windows, else USERPROFILE), else "". A relative HOME is ignored: paths
// under it would land wherever carryover runs, which for a hook is the
// project. When the project's Claude Code settings set it, it is the
// account's home (AccountHome), never another variable.
func (e Env) Home() string {
	if h := e.getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Clean(h)
	}
	if runtime.GOOS == "windows" {
		if h := e.getenv("USERPROFILE"); filepath.IsAbs(h) {
			return filepath.Clean(h)
		}
	}
	if e.homeHidden {
		return e.accountHome()
	}
	return ""
}

// userCacheDir is the user cache directory as the environment names it
// (os.UserCacheDir, read through e's getenv so that a project's value can
// be hidden). Only asked without a home, so the systems whose cache
// directory is under the home have none.
func (e Env) userCacheDir() (string, error) {
	if e.UserCacheDir != nil {
		return e.UserCacheDir()
	}
	var d string
	switch runtime.GOOS {
	case "windows":
		d = e.getenv("LocalAppData")
	case "darwin", "ios", "plan9":
	default:
		d = e.getenv("XDG_CACHE_HOME")
	}
	if !filepath.IsAbs(d) {
		return "", errors.New("no absolute user cache directory")
	}
	return d, nil
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
		if c, err := e.userCacheDir(); err == nil && filepath.IsAbs(c) {
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

// LogPath is the log file: CARRYOVER_LOG when it is absolute, else
// carryover.log in the state directory, or "" when there is no place for
// it. A relative CARRYOVER_LOG would land wherever carryover runs.
func (e Env) LogPath() string {
	if p := e.getenv("CARRYOVER_LOG"); filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if d := e.Dirs().State; d != "" {
		return filepath.Join(d, "carryover.log")
	}
	return ""
}

// LogPathFor is LogPath for a process run in the project at projectDir
// ("" for none; a hook's CLAUDE_PROJECT_DIR): the variables that the
// project's Claude Code settings set (CARRYOVER_LOG, XDG_STATE_HOME, HOME…)
// are ignored, even for a trusted project. carryover appends to its log
// what sessions wrote, so a repository must never choose that file (say
// ~/.bashrc).
func (e Env) LogPathFor(projectDir string) string {
	if projectDir == "" {
		return e.LogPath()
	}
	dir, err := filepath.Abs(projectDir)
	if err != nil {
		return e.LogPath()
	}
	g, _, _ := projectEnvGuard(e, dir)
	return g.LogPath()
}

// ClaudeProjects is where Claude Code keeps its transcripts:
// $CLAUDE_CONFIG_DIR/projects when it is absolute, else ~/.claude/projects.
func (e Env) ClaudeProjects() string {
	if d := e.getenv("CLAUDE_CONFIG_DIR"); filepath.IsAbs(d) {
		return filepath.Join(d, "projects")
	}
	return filepath.Join(e.Home(), ".claude", "projects")
}
