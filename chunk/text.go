package chunk

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/carryover-dev/carryover/internal/projectdir"
)

// cutAt returns the largest index ≤ n that does not split a UTF-8 sequence.
func cutAt(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// headTail keeps the first head and last tail bytes of s, with a marker
// saying how much was left out.
func headTail(s string, head, tail int) string {
	if len(s) <= head+tail+40 {
		return s
	}
	h := cutAt(s, head)
	t := len(s) - tail
	for t < len(s) && !utf8.RuneStart(s[t]) {
		t++
	}
	return s[:h] + "\n… [" + strconv.Itoa(t-h) + " chars omitted] …\n" + s[t:]
}

// shorten cuts s to at most n bytes, ending with "…" when cut.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.TrimSpace(s[:cutAt(s, n-len("…"))]) + "…"
}

// oneLine collapses all whitespace runs of s into single spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// shortLine returns shorten(oneLine(s), n) but reads s only as far as the
// result needs: s may be a whole file written or edited.
func shortLine(s string, n int) string {
	var b []byte
	space := false
	// Past n bytes the result is cut at n-len("…") or before: the rest
	// of s does not matter.
	for i := 0; i < len(s) && len(b) <= n; {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		if unicode.IsSpace(r) {
			space = len(b) > 0
		} else {
			if space {
				b = append(b, ' ')
				space = false
			}
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return shorten(string(b), n)
}

// firstLine returns the first non-blank line of s, trimmed.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if t := strings.TrimSpace(line); t != "" {
			return t
		}
	}
	return ""
}

// clean strips ANSI escape sequences and carriage returns, trims trailing
// spaces of lines and collapses runs of blank lines, so tool output is
// compact and greppable.
func clean(s string) string {
	if !strings.ContainsAny(s, "\x1b\r\t ") {
		return strings.TrimSpace(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	blank := 0
	for line := range strings.Lines(s) {
		line = strings.TrimRight(stripANSI(line), " \t\r\n")
		if line == "" {
			blank++
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
			if blank > 0 {
				b.WriteByte('\n')
			}
		}
		blank = 0
		b.WriteString(line)
	}
	return b.String()
}

// stripANSI removes CSI (ESC [ … letter) and two-byte ESC sequences.
func stripANSI(s string) string {
	i := strings.IndexByte(s, '\x1b')
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i >= 0 {
		b.WriteString(s[:i])
		s = s[i+1:]
		switch {
		case strings.HasPrefix(s, "["):
			j := 1
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			s = s[min(j+1, len(s)):]
		case s != "":
			s = s[1:]
		}
		i = strings.IndexByte(s, '\x1b')
	}
	b.WriteString(s)
	return b.String()
}

// stripTag removes every <tag>…</tag> element (content included) from s.
func stripTag(s, tag string) string {
	open, closing := "<"+tag+">", "</"+tag+">"
	for {
		i := strings.Index(s, open)
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], closing)
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + s[i+j+len(closing):]
	}
}

// tagContent returns the content of the first <tag>…</tag> in s.
func tagContent(s, tag string) (string, bool) {
	open, closing := "<"+tag+">", "</"+tag+">"
	i := strings.Index(s, open)
	if i < 0 {
		return "", false
	}
	s = s[i+len(open):]
	if j := strings.Index(s, closing); j >= 0 {
		s = s[:j]
	}
	return strings.TrimSpace(s), true
}

// relPath makes p relative to the project directory when it lies inside it
// (see projectdir.Rel: a Windows project whatever the case and separators).
func relPath(project, p string) string {
	if rel, ok := projectdir.Rel(project, p); ok {
		return rel
	}
	return p
}

// hasWord reports whether the lower-case text s contains w delimited by
// non-letters on both sides.
func hasWord(s, w string) bool {
	for off := 0; ; {
		i := strings.Index(s[off:], w)
		if i < 0 {
			return false
		}
		i += off
		end := i + len(w)
		if (i == 0 || !isLetter(s[i-1])) && (end == len(s) || !isLetter(s[end])) {
			return true
		}
		off = i + 1
	}
}

func isLetter(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

// Sentences splits prose into trimmed sentences, skipping fenced code
// blocks and list markers: lines first, then after ". ", "! " and "? "
// inside a line, and after the full-width "。", "！" and "？", which
// need no space after them. The restore's user words use it too.
func Sentences(text string) []string {
	var out []string
	fence := false
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "```") {
			fence = !fence
			continue
		}
		if fence || line == "" {
			continue
		}
		line = strings.TrimLeft(line, "-*#> ")
		for line != "" {
			cut := len(line)
			for _, sep := range sentenceEnds {
				if i := strings.Index(line, sep); i >= 0 && i+len(sep) < cut {
					cut = i + len(strings.TrimRight(sep, " "))
				}
			}
			if s := strings.TrimSpace(line[:cut]); s != "" {
				out = append(out, s)
			}
			line = strings.TrimSpace(line[cut:])
		}
	}
	return out
}

// sentenceEnds end a sentence inside a line.
var sentenceEnds = []string{". ", "! ", "? ", "。", "！", "？"}
