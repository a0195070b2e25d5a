package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
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
// when there is none or it cannot be read).
func settingsEnv(path string) map[string]string {
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSettingsBytes))
	if err != nil {
		return nil
	}
	var s struct {
		Env map[string]any `json:"env"`
	}
	if json.Unmarshal(data, &s) != nil {
		return nil
	}
	out := map[string]string{}
	for k, v := range s.Env {
		if str, ok := v.(string); ok {
			out[k] = str
		} else if v != nil {
			out[k] = fmt.Sprint(v)
		}
	}
	return out
}

// projectEnvGuard returns a getenv that hides the sensitive variables the
// project's Claude Code settings set to their current value (unless the
// user's own settings set the same value), and the names it hid.
func projectEnvGuard(getenv func(string) string, home, projectDir string) (func(string) string, []string) {
	if projectDir == "" {
		return getenv, nil
	}
	project := map[string]string{}
	for _, name := range []string{"settings.json", "settings.local.json"} {
		for k, v := range settingsEnv(filepath.Join(projectDir, ".claude", name)) {
			project[k] = v
		}
	}
	if len(project) == 0 {
		return getenv, nil
	}
	userDir := getenv("CLAUDE_CONFIG_DIR")
	if !filepath.IsAbs(userDir) && home != "" {
		userDir = filepath.Join(home, ".claude")
	}
	var user map[string]string
	if userDir != "" {
		user = settingsEnv(filepath.Join(userDir, "settings.json"))
	}
	var hidden []string
	for _, k := range sensitiveEnv {
		v, ok := project[k]
		if !ok || v == "" || getenv(k) != v || user[k] == v {
			continue
		}
		hidden = append(hidden, k)
	}
	if len(hidden) == 0 {
		return getenv, nil
	}
	return func(k string) string {
		if slices.Contains(hidden, k) {
			return ""
		}
		return getenv(k)
	}, hidden
}

// errGuarded marks the problem of a hidden variable.
var errGuarded = errors.New("set by the project's .claude settings (env), ignored: only your own environment or settings may set it; add the project to trusted_projects to allow it")
