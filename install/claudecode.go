package install

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Version is a Claude Code release number: major, minor, patch.
type Version [3]int

// ExecFormSince is the first Claude Code release that spawns a command hook
// with "args" (exec form) directly, without a shell: its changelog's
// 2.1.139. Older releases do not know the field; what they do with it was
// not tried, so they get the shell form.
var ExecFormSince = Version{2, 1, 139}

// ParseVersion reads the release from 'claude --version' output, such as
// "2.1.197 (Claude Code)".
func ParseVersion(s string) (Version, bool) {
	var v Version
	f := strings.Fields(s)
	if len(f) == 0 {
		return v, false
	}
	parts := strings.Split(f[0], ".")
	if len(parts) != 3 {
		return v, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

// Less reports whether v is an earlier release than w.
func (v Version) Less(w Version) bool {
	for i := range v {
		if v[i] != w[i] {
			return v[i] < w[i]
		}
	}
	return false
}

func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2]) }

// ClaudeCode is an installed Claude Code CLI.
type ClaudeCode struct {
	Path    string
	Version Version
}

// ExecForm reports whether it runs exec-form hooks.
func (c ClaudeCode) ExecForm() bool { return !c.Version.Less(ExecFormSince) }

// ErrNoClaudeCode means no claude binary was found.
var ErrNoClaudeCode = errors.New("no Claude Code: claude is not on PATH, in ~/.local/bin or in ~/.claude/local")

// FindClaudeCode finds the claude binary (on PATH, else where Claude Code's
// own installers put it) and asks it its version. A claude inside the
// project directory is the repository's file, not the user's Claude Code:
// it is not run.
func FindClaudeCode(ctx context.Context, getenv func(string) string, project string) (ClaudeCode, error) {
	path, ok := LookPath(getenv, "claude")
	if !ok {
		home := getenv("HOME")
		for _, p := range []string{filepath.Join(home, ".local", "bin", "claude"), filepath.Join(home, ".claude", "local", "claude")} {
			if filepath.IsAbs(p) && IsExecutable(p) {
				path, ok = p, true
				break
			}
		}
	}
	if !ok {
		return ClaudeCode{}, ErrNoClaudeCode
	}
	if Inside(project, path) {
		return ClaudeCode{Path: path}, fmt.Errorf("the claude on PATH, %s, is inside the project: not run", path)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Env = append(os.Environ(), "PATH="+getenv("PATH"))
	cmd.Stdin = bytes.NewReader(nil) // it reads stdin in some modes
	var out capped
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return ClaudeCode{Path: path}, fmt.Errorf("%s --version: %w", path, err)
	}
	v, ok := ParseVersion(out.String())
	if !ok {
		return ClaudeCode{Path: path}, fmt.Errorf("%s --version printed %.60q, not a version", path, out.String())
	}
	return ClaudeCode{Path: path, Version: v}, nil
}

// capped keeps the first 4 KB written to it.
type capped struct{ bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := 4096 - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// RepoDir is the directory whose files a repository chose, for Inside:
// project, unless it is the home directory or holds it (doctor or install
// run from ~ or /), which no clone brings: then "", and nothing counts as
// inside.
func (in *Installer) RepoDir(project string) string {
	home := in.home()
	if project == "" || home == "" || Inside(project, home) {
		return ""
	}
	return project
}

// Inside reports whether path, symlinks resolved, is dir or in it. A path
// that cannot be resolved counts as inside: it cannot be shown to be out.
func Inside(dir, path string) bool {
	if dir == "" {
		return false
	}
	rd, err := filepath.EvalSymlinks(dir)
	if err != nil {
		rd = filepath.Clean(dir)
	}
	rp, err := filepath.EvalSymlinks(path)
	if err != nil {
		return true
	}
	rel, err := filepath.Rel(rd, rp)
	if err != nil {
		return false // another volume
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
