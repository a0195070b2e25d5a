// Package settings installs carryover's hooks into Claude Code settings
// files without damaging them.
//
// # Editing
//
// A settings file is edited as text, not re-marshalled: [Load] parses the
// bytes into a tree that knows where every value sits, and [File.Install]
// and [File.Uninstall] splice carryover's entries in and out at those
// offsets. Key order, indentation, escapes, number formats, line endings and
// the trailing newline are kept; inserted entries follow the file's own
// layout. Install appends a whole matcher group per hook (or updates an
// older carryover entry in place), and Uninstall removes carryover's entries
// and the groups, event arrays and "hooks" object that are left empty, so
// that install followed by uninstall gives back the original bytes.
//
// # What was there before
//
// Two facts cannot be read back from an installed file: whether the file
// existed before carryover created it, and what an empty container it filled
// ("hooks": {}, "Stop": [], or the whole document "{ }") looked like. When an
// install produces either, [File.Save] records it in a small sidecar next to
// the file, <file>.carryover-state, and the uninstall that removes the last
// carryover entry deletes it again. The settings file itself never holds
// anything but Claude Code settings. Without the sidecar (deleted, or never
// copied along with a committed project settings file) uninstall still
// removes exactly carryover's entries; it then drops the containers they
// leave empty, which Claude Code reads the same way.
//
// # Saving
//
// [File.Save] refuses to write through a symlink, over a file that changed
// since it was loaded or over a read-only one, copies the original to a
// backup (one per file wherever [File.SetBackup] says, else a timestamped
// one beside it), and replaces the file atomically.
package claudesettings

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/carryover-dev/carryover/hook"
)

// Errors, to be checked with errors.Is.
var (
	// ErrSymlink means a path to be edited is a symbolic link. carryover
	// never writes through one: the link may point into a shared or managed
	// location.
	ErrSymlink = errors.New("is a symbolic link")
	// ErrParse means a file could not be understood; it was not changed.
	ErrParse = errors.New("cannot parse")
	// ErrChanged means the file changed on disk after it was loaded.
	ErrChanged = errors.New("changed since it was read")
	// ErrLocked means another program (a running Claude Code) held the
	// file's lock for too long.
	ErrLocked = errors.New("locked by another program")
	// ErrReadOnly means the file's mode does not let its owner write it:
	// someone made it read-only, and carryover leaves it so.
	ErrReadOnly = errors.New("is read-only")
	// ErrNotOwner means a replacement of the file could not keep its owner
	// or group: it belongs to someone else, and carryover leaves it so.
	ErrNotOwner = errors.New("cannot keep its owner")
)

// Hook is one hook entry carryover owns.
type Hook struct {
	Event   string // Claude Code's spelling: PreCompact
	Matcher string // "" matches everything
	// Command is a shell command line, or in exec form (Args not nil) the
	// program, which Claude Code spawns with Args and no shell.
	Command string
	Args    []string
	Timeout int  // seconds; 0 when the entry has none
	Async   bool // Claude Code runs it in the background, output unused
}

// Exec reports whether h is in exec form.
func (h Hook) Exec() bool { return h.Args != nil }

// Argv is the program and arguments h runs when it is in exec form, or
// when its command line is made of plain words only (see PlainWords); ok
// is false otherwise.
func (h Hook) Argv() (argv []string, ok bool) {
	if h.Exec() {
		return append([]string{h.Command}, h.Args...), true
	}
	return PlainWords(h.Command)
}

// isOurs reports whether h runs carryover's hook subcommand.
func (h Hook) isOurs() bool {
	if !h.Exec() {
		return IsOurs(h.Command)
	}
	return len(h.Args) > 0 && h.Args[0] == "hook" && IsCarryoverProgram(h.Command)
}

// IsCarryoverProgram reports whether prog names a carryover binary: its
// base name, after / or \, is carryover or carryover.exe.
func IsCarryoverProgram(prog string) bool {
	base := prog[strings.LastIndexAny(prog, `/\`)+1:]
	return base == "carryover" || base == "carryover.exe"
}

// HookOptions selects optional hooks.
type HookOptions struct {
	// Startup also restores on SessionStart(startup), i.e. into a fresh
	// session of a project with history.
	Startup bool
	// PostToolUse archives after every tool call: the PostToolUse hook
	// then runs for every tool, with --archive. Off by default: the
	// transcript already holds every tool call and Stop/PreCompact archive
	// it, so this only buys freshness at the cost of one process per call.
	// Without it PostToolUse runs for the file tools only, to recall.
	PostToolUse bool
	// Exec writes the hooks in exec form: the binary and its arguments,
	// which Claude Code 2.1.139 and later spawn without a shell.
	Exec bool
}

// FileToolsMatcher selects the tool calls PostToolUse's file recall
// answers.
const FileToolsMatcher = "Read|Edit|Write|MultiEdit"

// DefaultHooks returns carryover's hooks running exe: the absolute path of
// the binary, or for settings meant to be committed a command name that
// resolves on PATH ("carryover").
func DefaultHooks(exe string, opt HookOptions) []Hook {
	h := func(e hook.Event, matcher string, timeout int) Hook {
		if opt.Exec {
			return Hook{Event: string(e), Matcher: matcher, Command: exe, Args: []string{"hook", e.Arg()}, Timeout: timeout}
		}
		return Hook{Event: string(e), Matcher: matcher, Command: Command(exe, e), Timeout: timeout}
	}
	// PreCompact and SessionStart match exact trigger and source names; the
	// other events run unconditionally (no matcher).
	hooks := []Hook{
		h(hook.PreCompact, "manual", 30),
		h(hook.PreCompact, "auto", 30),
		h(hook.SessionStart, "compact", 10),
		h(hook.SessionStart, "resume", 10),
	}
	if opt.Startup {
		hooks = append(hooks, h(hook.SessionStart, "startup", 10))
	}
	hooks = append(hooks,
		h(hook.UserPromptSubmit, "", 5),
		h(hook.Stop, "", 15),
		// Claude Code gives SessionEnd hooks 1.5 s unless a hook asks for
		// more; SessionEnd only records, so a short deadline is fine.
		h(hook.SessionEnd, "", 2),
		h(hook.PostCompact, "", 10),
	)
	// The tool hooks recall (a failure's earlier fix, a file's earlier
	// changes); a run that finds nothing returns without opening the
	// store, so short timeouts do.
	hooks = append(hooks, h(hook.PostToolUseFailure, "*", 5))
	if opt.PostToolUse {
		archive := h(hook.PostToolUse, "", 5)
		if archive.Exec() {
			archive.Args = append(archive.Args, "--archive")
		} else {
			archive.Command += " --archive"
		}
		hooks = append(hooks, archive)
	} else {
		hooks = append(hooks, h(hook.PostToolUse, FileToolsMatcher, 5))
	}
	return hooks
}

// Command is the shell command line running exe for event e.
func Command(exe string, e hook.Event) string {
	return shellQuote(exe) + " hook " + e.Arg()
}

// shellQuote quotes s for a POSIX shell unless it is made of characters
// that need no quoting.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+./:@%,=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// IsOurs reports whether a hook command runs carryover: its program's base
// name is carryover (in any directory, quoted or not) and its first argument
// is "hook". An older install with another path or version counts.
func IsOurs(command string) bool {
	words := shellWords(command, 2)
	if len(words) < 2 || words[1] != "hook" {
		return false
	}
	return IsCarryoverProgram(words[0])
}

// PlainWords splits a shell command line that a POSIX shell would run as
// one simple command with no expansion at all: words of plain characters,
// single-quoted text, double-quoted text without $, ` or \, and
// backslash-escaped characters. Anything else (operators, redirections,
// variables, command substitution, globs, ~, comments, control
// characters, an unterminated quote) gives ok false: what a shell would
// make of it is not a list of words to spawn.
func PlainWords(s string) (words []string, ok bool) {
	var w strings.Builder
	inWord := false
	end := func() {
		if inWord {
			words = append(words, w.String())
			w.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			end()
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 || strings.ContainsAny(s[i+1:i+1+j], "$`\\") {
				return nil, false
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '\\' && i+1 < len(s) && s[i+1] >= ' ' && s[i+1] != 0x7f:
			i++
			w.WriteByte(s[i])
			inWord = true
		case c < ' ' || c == 0x7f || strings.IndexByte(";&|<>()$`\\*?[]{}~#!", c) >= 0:
			return nil, false
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	end()
	return words, len(words) > 0
}

// shellWords splits the first n words of a POSIX shell command line,
// honouring single quotes, double quotes and backslashes. It stops at the
// first operator or unterminated quote.
func shellWords(s string, n int) []string {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s) && len(words) < n; i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case strings.IndexByte(";&|<>()`", c) >= 0:
			if inWord {
				words = append(words, w.String())
			}
			return words
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return words
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
			if i >= len(s) {
				return words
			}
			inWord = true
		case c == '\\':
			if i+1 < len(s) {
				i++
				w.WriteByte(s[i])
			}
			inWord = true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord && len(words) < n {
		words = append(words, w.String())
	}
	return words
}

// Path is the settings file of a scope: "user" (home/.claude/settings.json),
// "project" (projectDir/.claude/settings.json) or "local"
// (projectDir/.claude/settings.local.json, not meant to be committed).
func Path(scope, home, projectDir string) (string, error) {
	switch scope {
	case "user":
		if home == "" {
			return "", errors.New("no home directory")
		}
		return filepath.Join(home, ".claude", "settings.json"), nil
	case "project", "local":
		if projectDir == "" {
			return "", errors.New("no project directory")
		}
		name := "settings.json"
		if scope == "local" {
			name = "settings.local.json"
		}
		return filepath.Join(projectDir, ".claude", name), nil
	}
	return "", fmt.Errorf("unknown scope %q: want user, project or local", scope)
}
