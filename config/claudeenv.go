package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/carryover-dev/carryover/internal/smallfile"
)

// A repository's .claude/settings.json (and settings.local.json) can set
// environment variables for every hook through its "env" key, so a cloned
// repository could point CARRYOVER_DB, CARRYOVER_DATABASE_URL, the log or
// the XDG directories wherever its author likes, just as its
// .carryover.toml could. The variables below are honoured only when the
// project's own settings do not set them to the value they have, or when
// the user's settings set the same value, or the project is trusted.

// sensitiveEnv lists the variables that choose where the archive, the
// config and the log are, who rows belong to, and what is masked or how
// long hooks wait. HOME, the XDG directories, CLAUDE_CONFIG_DIR (where the
// user's own Claude Code settings are read) and their Windows
// counterparts all place files.
var sensitiveEnv = []string{
	"CARRYOVER_DB", "CARRYOVER_DATABASE_URL", "CARRYOVER_OWNER", "CARRYOVER_TEAM",
	"CARRYOVER_REDACT_PATTERNS", "CARRYOVER_LOG", "CARRYOVER_HOOK_TIMEOUT", "CARRYOVER_SESSION_END_TIMEOUT",
	"HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "CLAUDE_CONFIG_DIR",
	"USERPROFILE", "LOCALAPPDATA", "APPDATA",
}

// envName is how the environment compares a variable's name: Windows
// ignores case (LocalAppData is LOCALAPPDATA).
func envName(k string) string {
	if runtime.GOOS == "windows" {
		return strings.ToUpper(k)
	}
	return k
}

// maxSettingsBytes caps a Claude Code settings file read for its env.
const maxSettingsBytes = 1 << 20

// settingsEnv returns the "env" object of a Claude Code settings file (nil
// when there is none). ok is false when the file exists but cannot be
// read as JSON within maxSettingsBytes: Claude Code may still read it
// (it has no such cap), so it may set anything.
func settingsEnv(path string) (env map[string]string, ok bool) {
	data, truncated, err := smallfile.Read(path, maxSettingsBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, true
	}
	if err != nil || truncated {
		return nil, false
	}
	var s struct {
		Env map[string]any `json:"env"`
	}
	if json.Unmarshal(data, &s) != nil {
		return nil, false
	}
	out := map[string]string{}
	for k, v := range s.Env {
		if str, ok := v.(string); ok {
			out[envName(k)] = str
		} else if v != nil {
			out[envName(k)] = fmt.Sprint(v)
		}
	}
	return out, true
}

// projectEnvGuard returns e with the sensitive variables hidden that the
// project's Claude Code settings set to their current value (unless the
// user's own settings set the same value), and the names it hid. When a
// project settings file cannot be read (unknown), every set sensitive
// variable the user's settings do not give is hidden: HOME too, unless it
// is the account's home (AccountHome). A hidden HOME falls back to the
// account's home, never to another variable.
func projectEnvGuard(e Env, projectDir string) (guarded Env, hidden []string, unknown bool) {
	if projectDir == "" {
		return e, nil, false
	}
	project := map[string]string{}
	// unknown: a project file exists whose env carryover cannot see.
	for _, name := range []string{"settings.json", "settings.local.json"} {
		env, ok := settingsEnv(filepath.Join(projectDir, ".claude", name))
		unknown = unknown || !ok
		for k, v := range env {
			project[k] = v
		}
	}
	if len(project) == 0 && !unknown {
		return e, nil, false
	}
	getenv := e.getenv
	var candidates []string
	for _, k := range sensitiveEnv {
		cur := getenv(k)
		home := k == "HOME" || k == "USERPROFILE" && runtime.GOOS == "windows"
		if cur == "" && !home {
			continue // nothing to hide; an empty HOME set by the project is, for the account's
		}
		if unknown {
			// Any value may be the project's, but for a HOME that is the
			// account's own: hooks keep their store.
			if home && cur != "" && filepath.Clean(cur) == e.accountHome() {
				continue
			}
			candidates = append(candidates, k)
		} else if v, ok := project[k]; ok && v == cur {
			candidates = append(candidates, k)
		}
	}
	if len(candidates) == 0 {
		return e, nil, unknown
	}
	// The user's own settings may give the same values: they are found
	// through what the project did not set (its CLAUDE_CONFIG_DIR or HOME
	// could point at a settings file of its own).
	pre := e
	pre.Getenv = hide(getenv, candidates)
	pre.homeHidden = e.homeHidden || slices.Contains(candidates, "HOME") || slices.Contains(candidates, "USERPROFILE")
	userDir := pre.getenv("CLAUDE_CONFIG_DIR")
	if !filepath.IsAbs(userDir) {
		userDir = ""
		if h := pre.Home(); h != "" {
			userDir = filepath.Join(h, ".claude")
		}
	}
	var user map[string]string
	if userDir != "" {
		user, _ = settingsEnv(filepath.Join(userDir, "settings.json"))
	}
	for _, k := range candidates {
		if v, ok := user[k]; !ok || v != getenv(k) {
			hidden = append(hidden, k)
		}
	}
	if len(hidden) == 0 {
		return e, nil, unknown
	}
	guarded = e
	guarded.Getenv = hide(getenv, hidden)
	guarded.homeHidden = e.homeHidden || slices.Contains(hidden, "HOME") || slices.Contains(hidden, "USERPROFILE")
	return guarded, hidden, unknown
}

// hide returns getenv with the variables in names read as unset.
func hide(getenv func(string) string, names []string) func(string) string {
	return func(k string) string {
		if slices.Contains(names, envName(k)) {
			return ""
		}
		return getenv(k)
	}
}

// errGuarded marks the problem of a hidden variable.
var errGuarded = errors.New("set by the project's .claude settings (env), ignored: only your own environment or settings may set it; add the project to trusted_projects to allow it")

// errLogGuarded marks a variable of the log that a trusted project's
// settings set.
var errLogGuarded = errors.New("set by the project's .claude settings (env), ignored for the log even in a trusted project:" +
	" carryover appends to its log, and only your own environment or settings choose that file")

// errUnchecked marks the problem of a variable hidden because the
// project's settings could not be read to see whether they set it.
// Even trust cannot be read then: the user's config is found through
// HOME, which may be the project's.
var errUnchecked = errors.New("the project's .claude settings cannot be read (not JSON, or over 1 MiB), so they may have set it;" +
	" fix that file to let carryover check it")
