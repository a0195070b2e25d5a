package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
)

// A repository's .claude/settings.json (and settings.local.json) can set
// environment variables for every hook through its "env" key, so a cloned
// repository could point CARRYOVER_DB, CARRYOVER_DATABASE_URL, the log or
// the XDG directories wherever its author likes, just as its
// .carryover.toml could. The variables below are honoured only when the
// project's own settings do not set them to the value they have, or when
// the user's settings set the same value, or the project is trusted.

// sensitiveEnv lists the variables that choose where the archive and the
// log go, who rows belong to, and what is masked or how long hooks wait.
var sensitiveEnv = []string{
	"CARRYOVER_DB", "CARRYOVER_DATABASE_URL", "CARRYOVER_OWNER", "CARRYOVER_TEAM",
	"CARRYOVER_REDACT_PATTERNS", "CARRYOVER_LOG", "CARRYOVER_HOOK_TIMEOUT", "CARRYOVER_SESSION_END_TIMEOUT",
	"HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME",
}

// maxSettingsBytes caps a Claude Code settings file read for its env.
const maxSettingsBytes = 1 << 20

// settingsEnv returns the "env" object of a Claude Code settings file (nil
// when there is none). ok is false when the file exists but cannot be
// read as JSON within maxSettingsBytes: Claude Code may still read it
// (it has no such cap), so it may set anything.
func settingsEnv(path string) (env map[string]string, ok bool) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, true
	}
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSettingsBytes+1))
	if err != nil || len(data) > maxSettingsBytes {
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
			out[k] = str
		} else if v != nil {
			out[k] = fmt.Sprint(v)
		}
	}
	return out, true
}

// projectEnvGuard returns a getenv that hides the sensitive variables the
// project's Claude Code settings set to their current value (unless the
// user's own settings set the same value), and the names it hid. When a
// project settings file cannot be read (unknown), every set sensitive
// variable the user's settings do not give is hidden: HOME too, unless it
// is the one the system records for the user (else hooks then find no
// store and do nothing until the file is fixed).
func projectEnvGuard(getenv func(string) string, home, projectDir string) (guarded func(string) string, hidden []string, unknown bool) {
	if projectDir == "" {
		return getenv, nil, false
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
		return getenv, nil, false
	}
	userDir := getenv("CLAUDE_CONFIG_DIR")
	if !filepath.IsAbs(userDir) && home != "" {
		userDir = filepath.Join(home, ".claude")
	}
	var user map[string]string
	if userDir != "" {
		user, _ = settingsEnv(filepath.Join(userDir, "settings.json"))
	}
	for _, k := range sensitiveEnv {
		v, ok := project[k]
		if unknown {
			// Any value may be the project's, but for a HOME that is the
			// one the system records for the user: hooks keep their store.
			v, ok = getenv(k), true
			if k == "HOME" && v == systemHome() {
				continue
			}
		}
		if !ok || v == "" || getenv(k) != v || user[k] == v {
			continue
		}
		hidden = append(hidden, k)
	}
	if len(hidden) == 0 {
		return getenv, nil, false
	}
	return func(k string) string {
		if slices.Contains(hidden, k) {
			return ""
		}
		return getenv(k)
	}, hidden, unknown
}

// systemHome is the home directory the system records for the user ("" when
// it cannot be read).
func systemHome() string {
	u, err := user.Current()
	if err != nil {
		return ""
	}
	return u.HomeDir
}

// errGuarded marks the problem of a hidden variable.
var errGuarded = errors.New("set by the project's .claude settings (env), ignored: only your own environment or settings may set it; add the project to trusted_projects to allow it")

// errUnchecked marks the problem of a variable hidden because the
// project's settings could not be read to see whether they set it.
// Even trust cannot be read then: the user's config is found through
// HOME, which may be the project's.
var errUnchecked = errors.New("the project's .claude settings cannot be read (not JSON, or over 1 MiB), so they may have set it;" +
	" fix that file to let carryover check it")
