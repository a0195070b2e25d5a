package claudesettings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
)

// Claude Code runs one status line command, "statusLine": {"type":
// "command", "command": "..."} in settings.json. carryover's wraps the one
// that was there, if any: `carryover statusline --wrap '<old command>'`
// runs the old command and keeps its output. Only the "command" string is
// ever changed (other members such as "padding" stay as they were), and
// the old string's exact JSON text is kept in the sidecar so an uninstall
// puts back the same bytes.

// StatusLineCommand is the statusLine command running the binary at exe,
// wrapping the command wrap ("" for none).
func StatusLineCommand(exe, wrap string) string {
	s := shellQuote(exe) + " statusline"
	if wrap != "" {
		s += " --wrap " + shellQuote(wrap)
	}
	return s
}

// IsOurStatusLine reports whether a statusLine command runs carryover's:
// a program named carryover (any directory) whose first argument is
// "statusline".
func IsOurStatusLine(command string) bool {
	words := shellWords(command, 2)
	if len(words) < 2 || words[1] != "statusline" {
		return false
	}
	base := filepath.Base(words[0])
	return base == "carryover" || base == "carryover.exe"
}

// WrappedStatusLine is the command carryover's statusLine command wraps,
// "" for none.
func WrappedStatusLine(command string) string {
	words := shellWords(command, 4)
	if len(words) == 4 && words[2] == "--wrap" {
		return words[3]
	}
	return ""
}

// StatusLine returns the statusLine command; ok is false when there is
// none or it is not a command.
func (f *File) StatusLine() (command string, ok bool) {
	_, cmd, err := f.statusLine()
	if err != nil || cmd == nil {
		return "", false
	}
	s, ok := cmd.str(f.src)
	return s, ok
}

// statusLine returns the statusLine object and its "command" string, nil
// when absent. A statusLine that is not a command object is an error:
// carryover does not know what Claude Code would do with it.
func (f *File) statusLine() (sl, cmd *node, err error) {
	if f.root == nil {
		return nil, nil, nil
	}
	if sl, err = f.member(f.root, "statusLine"); err != nil || sl == nil {
		return nil, nil, err
	}
	if sl.kind != kindObject {
		return nil, nil, fmt.Errorf("%w: %v", ErrParse, errorAt(f.src, sl.start, `"statusLine" must be an object`))
	}
	typ, err := f.member(sl, "type")
	if err != nil {
		return nil, nil, err
	}
	if typ != nil {
		if t, _ := typ.str(f.src); t != "command" {
			return nil, nil, fmt.Errorf("statusLine is of type %s, not a command; carryover leaves it alone", f.src[typ.start:typ.end])
		}
	}
	if cmd, err = f.member(sl, "command"); err != nil {
		return nil, nil, err
	}
	if cmd == nil || cmd.kind != kindString {
		return nil, nil, fmt.Errorf(`%w: %v`, ErrParse, errorAt(f.src, sl.start, `"statusLine" has no "command" string`))
	}
	return sl, cmd, nil
}

// hasOurStatusLine reports whether the statusLine command is carryover's.
func (f *File) hasOurStatusLine() bool {
	cmd, ok := f.StatusLine()
	return ok && IsOurStatusLine(cmd)
}

// InstallStatusLine makes the statusLine run carryover's status line from
// the binary at exe: it adds one, wraps the command already there, or
// updates an older carryover one in place (keeping what it wraps). A
// second InstallStatusLine with the same exe changes nothing.
func (f *File) InstallStatusLine(exe string) (changed bool, err error) {
	if !filepath.IsAbs(exe) {
		return false, fmt.Errorf("install: the status line binary %q is not an absolute path", exe)
	}
	before := f.src
	if err := f.create(); err != nil {
		return false, err
	}
	if f.root.kind != kindObject {
		return false, fmt.Errorf("%w: %v", ErrParse, errorAt(f.src, f.root.start, "want a JSON object"))
	}
	sl, cmd, err := f.statusLine()
	if err != nil {
		return false, err
	}
	if sl == nil {
		entry := object{{"type", "command"}, {"command", StatusLineCommand(exe, "")}}
		if err := f.insert(f.root, "", "statusLine", entry); err != nil {
			return false, err
		}
		return !bytes.Equal(before, f.src), nil
	}
	old, _ := cmd.str(f.src)
	var want string
	if IsOurStatusLine(old) {
		want = StatusLineCommand(exe, WrappedStatusLine(old))
	} else {
		want = StatusLineCommand(exe, old)
		f.state.StatusLine = string(f.src[cmd.start:cmd.end])
	}
	if want == old {
		return false, nil
	}
	if err := f.splice(cmd.start, cmd.end, quote(want)); err != nil {
		return false, err
	}
	return !bytes.Equal(before, f.src), nil
}

// UninstallStatusLine undoes InstallStatusLine: it puts back the command
// carryover's wrapped, with its original text when the sidecar has it, or
// removes the statusLine carryover added (and what that leaves empty). A
// statusLine that is not carryover's, or not a command at all, is left
// alone.
func (f *File) UninstallStatusLine() (changed bool, err error) {
	before := f.src
	_, cmd, err := f.statusLine()
	if err != nil || cmd == nil {
		return false, nil // not a command, so not carryover's
	}
	cur, _ := cmd.str(f.src)
	if !IsOurStatusLine(cur) {
		return false, nil
	}
	wrapped := WrappedStatusLine(cur)
	if wrapped == "" {
		if err := f.removeMember(nil, "statusLine"); err != nil {
			return false, err
		}
		return !bytes.Equal(before, f.src), nil
	}
	text := quote(wrapped)
	var orig string
	if json.Unmarshal([]byte(f.state.StatusLine), &orig) == nil && orig == wrapped {
		text = f.state.StatusLine
	}
	f.state.StatusLine = ""
	if err := f.splice(cmd.start, cmd.end, text); err != nil {
		return false, err
	}
	return !bytes.Equal(before, f.src), nil
}
