package claudesettings

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DefaultClaudeMDText is the body of the Compact Instructions section
// carryover adds to a project's CLAUDE.md: what the summariser must keep.
const DefaultClaudeMDText = `When compacting this conversation, keep verbatim:
- exact file paths, function and symbol names that were read, created or edited;
- the exact commands that worked (build, test, run, deploy), with their flags;
- errors that are still open, with their exact messages, and how fixed errors were fixed;
- decisions and the reasons for them, including approaches that were rejected and why;
- constraints and preferences the user stated;
- the current task, its todo list and the next step.

Details lost in a compaction are not gone: carryover archives every step of this project's sessions. After a
compaction, use the ` + "`mcp__carryover__search`" + ` tool (then ` + "`get`, `timeline`, `sessions`" + `), or run
` + "`carryover search \"<words>\"`" + `, for exact commands, paths, errors and decisions the summary dropped. Keep the
current task and next step with the ` + "`state`" + ` tool (or ` + "`carryover state \"…\"`" + `), and lasting decisions or
constraints with ` + "`remember`" + ` (or ` + "`carryover note \"…\" --kind decision`" + `): every restore after a compaction
shows them, the state first.`

// The block ClaudeMD manages is delimited by these HTML comments, which
// Markdown renders as nothing. A block carryover wrote into a file it created
// opens with beginNew, so that removing it can remove the file too.
const (
	beginMark = "<!-- carryover:begin -->"
	beginNew  = "<!-- carryover:begin new-file -->"
	endMark   = "<!-- carryover:end -->"
	mdHeading = "## Compact Instructions"
)

// ClaudeMD adds (install) or updates a marked block holding a
// "## Compact Instructions" section with text to the Markdown file at path,
// or removes it (!install). A new block goes at the end, after a blank line;
// removing it restores the file byte for byte, and removes the file if
// carryover created it and nothing else was added since. It refuses a
// symlink (ErrSymlink), a begin marker without an end (ErrParse), and to
// rewrite a read-only file (ErrReadOnly) or one whose owner it could not
// keep (ErrNotOwner).
func ClaudeMD(path string, install bool, text string) (changed bool, err error) {
	fi, src, exists, err := readClaudeMD(path)
	if err != nil {
		return false, err
	}
	mode := fs.FileMode(0o644) // CLAUDE.md is meant to be shared
	if exists {
		mode = fi.Mode().Perm()
	}
	out, remove, err := editClaudeMD(src, exists, install, text)
	if err != nil {
		return false, fmt.Errorf("%w %s: %w", ErrParse, path, err)
	}
	switch {
	case remove:
		return true, os.Remove(path)
	case exists && bytes.Equal(out, src), !exists && out == nil:
		return false, nil
	}
	if err := checkReplace(path, fi, exists); err != nil {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	return true, writeAtomic(path, out, mode)
}

// CheckClaudeMD returns the error ClaudeMD would return before it writes
// anything: a symlink, not a regular file, unreadable, a block it cannot
// parse, or, when the file must be rewritten, read-only or with an owner
// a replacement would not keep. Install and
// uninstall check it before they change the settings, so that a refused
// CLAUDE.md leaves everything as it was.
func CheckClaudeMD(path string, install bool, text string) error {
	fi, src, exists, err := readClaudeMD(path)
	if err != nil {
		return err
	}
	out, remove, err := editClaudeMD(src, exists, install, text)
	if err != nil {
		return fmt.Errorf("%w %s: %w", ErrParse, path, err)
	}
	if remove || exists && bytes.Equal(out, src) || !exists && out == nil {
		return nil // nothing to replace: a file left as it is may be anyone's
	}
	return checkReplace(path, fi, exists)
}

// checkReplace refuses to replace an existing file that is read-only or
// whose owner the replacement could not keep.
func checkReplace(path string, fi fs.FileInfo, exists bool) error {
	if !exists {
		return nil
	}
	if err := replaceable(fi); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// readClaudeMD reads the file at path, refusing what ClaudeMD refuses.
func readClaudeMD(path string) (fi fs.FileInfo, src []byte, exists bool, err error) {
	fi, err = os.Lstat(path)
	exists = err == nil
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, nil, false, err
	case exists && fi.Mode()&fs.ModeSymlink != 0:
		return nil, nil, false, fmt.Errorf("%s: %w", path, ErrSymlink)
	case exists && !fi.Mode().IsRegular():
		return nil, nil, false, fmt.Errorf("%s: not a regular file", path)
	}
	if exists {
		if src, err = os.ReadFile(path); err != nil {
			return nil, nil, false, err
		}
	}
	return fi, src, exists, nil
}

// editClaudeMD computes the new content; remove means delete the file.
func editClaudeMD(src []byte, exists, install bool, text string) (out []byte, remove bool, err error) {
	nl := "\n"
	if bytes.Contains(src, []byte("\r\n")) {
		nl = "\r\n"
	}
	start, end, created, err := findBlock(src)
	if err != nil {
		return nil, false, err
	}
	if !install {
		if start < 0 {
			return src, false, nil
		}
		for start >= 0 {
			src = cutBlock(src, start, end, nl)
			if start, end, _, err = findBlock(src); err != nil {
				return nil, false, err
			}
		}
		return src, created && len(src) == 0, nil
	}
	begin := beginMark
	if created || !exists {
		begin = beginNew
	}
	body := strings.ReplaceAll(strings.TrimSpace(text), "\r\n", "\n")
	block := strings.Join([]string{begin, mdHeading, "", body, endMark}, "\n")
	block = strings.ReplaceAll(block, "\n", nl)
	if start >= 0 {
		return append(append(append([]byte{}, src[:start]...), block...), src[end:]...), false, nil
	}
	// Append: a newline before the block (a blank line after a file that
	// ends with one) and one after it.
	out = append([]byte{}, src...)
	if len(src) > 0 {
		out = append(out, nl...)
	}
	return append(append(out, block...), nl...), false, nil
}

// findBlock locates the first block: start of its begin marker to the end of
// its end marker; start is -1 if there is none.
func findBlock(src []byte) (start, end int, created bool, err error) {
	start = bytes.Index(src, []byte(beginMark))
	newAt := bytes.Index(src, []byte(beginNew))
	if newAt >= 0 && (start < 0 || newAt < start) {
		start, created = newAt, true
	}
	if start < 0 {
		return -1, -1, false, nil
	}
	e := bytes.Index(src[start:], []byte(endMark))
	if e < 0 {
		return 0, 0, false, errorAt(src, start, "carryover block without %s", endMark)
	}
	return start, start + e + len(endMark), created, nil
}

// cutBlock removes src[start:end] with the line break after it, and, when
// the block ends the file, the line break before it that the append added.
func cutBlock(src []byte, start, end int, nl string) []byte {
	switch {
	case bytes.HasPrefix(src[end:], []byte(nl)):
		end += len(nl)
	case bytes.HasPrefix(src[end:], []byte("\n")):
		end++
	}
	if end == len(src) {
		switch {
		case bytes.HasSuffix(src[:start], []byte(nl)):
			start -= len(nl)
		case bytes.HasSuffix(src[:start], []byte("\n")):
			start--
		}
	}
	return append(append([]byte{}, src[:start]...), src[end:]...)
}
