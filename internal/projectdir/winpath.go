package projectdir

import (
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Windows paths are recognised and cleaned by their shape, not by the
// system this runs on: a store is shared by a team and exports move
// between machines, so a Linux server holds Windows users' projects, and
// C:\src\shop and c:\src\shop must be one project there too.

// IsWindows reports whether p is an absolute Windows path: a drive letter,
// a colon and a separator (C:\x, c:/x), or a UNC path (\\server\share).
func IsWindows(p string) bool {
	if len(p) >= 3 && isLetter(p[0]) && p[1] == ':' && isSep(p[2]) {
		return true
	}
	return len(p) >= 3 && isSep(p[0]) && isSep(p[1]) && !isSep(p[2])
}

// Clean returns p in the one form projects are stored and compared in. A
// Windows path gets an upper-case drive letter, backslashes, and no ".",
// ".." or repeated separators (C:/x//y/ becomes C:\x\y), whatever system
// runs this; the "\\?\" prefix of a long path is dropped. Any other path
// is cleaned as filepath.Clean does when it is absolute, and otherwise
// returned as it is.
func Clean(p string) string {
	if rest, ok := strings.CutPrefix(p, `\\?\`); ok && IsWindows(rest) {
		p = rest
	}
	if !IsWindows(p) {
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		return p
	}
	var vol string
	var parts []string
	if p[1] == ':' {
		vol, parts = strings.ToUpper(p[:1])+":", splitWin(p[2:])
	} else {
		// \\server\share: both name the volume and are kept.
		parts = splitWin(p[2:])
		if len(parts) < 2 {
			return `\\` + strings.Join(parts, `\`)
		}
		vol, parts = `\\`+parts[0]+`\`+parts[1], parts[2:]
	}
	out := parts[:0]
	for _, s := range parts {
		switch s {
		case ".":
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, s)
		}
	}
	return vol + `\` + strings.Join(out, `\`)
}

// Parent returns the directory holding p, a cleaned path, and p itself at
// the root: for a Windows path on any system, else filepath.Dir's.
func Parent(p string) string {
	if !IsWindows(p) {
		return filepath.Dir(p)
	}
	i := strings.LastIndexByte(p, '\\')
	root := len(p) >= 3 && p[1] == ':' && i == 2 || p[1] != ':' && strings.Count(p, `\`) <= 4
	switch {
	case root && i == len(p)-1:
		return p
	case root:
		return p[:i+1]
	}
	return p[:i]
}

// Abs is the cleaned absolute form of a directory a user names: a Windows
// path as it is (see Clean), on any system; any other made absolute
// against the working directory.
func Abs(p string) (string, error) {
	if IsWindows(p) {
		return Clean(p), nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return Clean(abs), nil
}

// ClaudeFolder is the name Claude Code gives the folder under
// ~/.claude/projects that holds the transcripts of sessions started in
// dir: every character but an ASCII letter or digit becomes "-", so
// C:\Users\me\shop is C--Users-me-shop and /home/me/app is -home-me-app.
// A character outside the Basic Multilingual Plane is two dashes: Claude
// Code replaces UTF-16 units.
func ClaudeFolder(dir string) string {
	var b strings.Builder
	for _, r := range dir {
		switch {
		case r < utf8.RuneSelf && (isLetter(byte(r)) || '0' <= r && r <= '9'):
			b.WriteRune(r)
		case r > 0xFFFF:
			b.WriteString("--")
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// IsClaudeFolder reports whether name has the shape of a ClaudeFolder
// name: no separators, and the dash of a leading "/" (-home-me-app) or
// the two of a drive's ":\" (C--Users-me).
func IsClaudeFolder(name string) bool {
	if strings.ContainsAny(name, `/\:`) || strings.Trim(name, "-") == "" {
		return false
	}
	return name[0] == '-' || len(name) >= 3 && isLetter(name[0]) && name[1] == '-' && name[2] == '-'
}

// Rel returns p relative to the directory root when p lies inside it. A
// Windows root is compared without regard to case and with either
// separator after it (Claude Code's tools write C:/x/y and c:\x\y alike),
// on any system; any other root exactly, with a "/" after it.
func Rel(root, p string) (string, bool) {
	if root == "" {
		return "", false
	}
	if !IsWindows(root) {
		if n := len(root); len(p) > n+1 && strings.HasPrefix(p, root) && p[n] == '/' {
			return p[n+1:], true
		}
		return "", false
	}
	root = strings.TrimSuffix(Clean(root), `\`) // a drive's root, C:\, is C: here
	n := len(root)
	if len(p) > n+1 && isSep(p[n]) && strings.EqualFold(strings.ReplaceAll(p[:n], "/", `\`), root) {
		return p[n+1:], true
	}
	return "", false
}

// TrimRoot removes root and the separator after it wherever it starts a
// path in the text s, making the paths under root relative. A Windows
// root matches whatever the case and separators (see Rel); any other
// exactly, with a "/" after it. The file system's root is left alone.
func TrimRoot(s, root string) string {
	if root == "" || root == "/" {
		return s
	}
	if !IsWindows(root) {
		return strings.ReplaceAll(s, strings.TrimSuffix(root, "/")+"/", "")
	}
	r := strings.TrimSuffix(Clean(root), `\`)
	if len(r) <= 2 {
		return s // a drive's root
	}
	var b strings.Builder
	last := 0
	for i := 0; i+len(r) < len(s); i++ {
		if isSep(s[i+len(r)]) && sameWin(s[i:i+len(r)], r) {
			b.WriteString(s[last:i])
			i += len(r)
			last = i + 1
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// sameWin reports whether a and b, of one length, are one Windows path:
// ASCII letters without regard to case, either separator.
func sameWin(a, b string) bool {
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if x == y || isSep(x) && isSep(y) {
			continue
		}
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// SameClaudeFolder reports whether two ClaudeFolder names name one
// folder: a Windows directory's (C--x) whatever the case, as Windows
// compares names, any other exactly.
func SameClaudeFolder(a, b string) bool {
	if a == "" || a[0] == '-' {
		return a == b
	}
	return strings.EqualFold(a, b)
}

// Base is the last element of a path written with either separator: the
// folder of a transcript path archived on another system.
func Base(p string) string {
	p = strings.TrimRight(p, `/\`)
	return p[strings.LastIndexAny(p, `/\`)+1:]
}

func splitWin(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == '\\' || r == '/' })
}

func isSep(c byte) bool    { return c == '\\' || c == '/' }
func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
