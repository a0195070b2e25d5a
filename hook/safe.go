package hook

import (
	"strings"
	"unicode/utf8"

	"github.com/carryover-dev/carryover/termsafe"
)

// MaxContext bounds the text one hook adds to Claude's context, in bytes
// (never fewer than the characters Claude Code counts). Claude Code moves
// an additionalContext over about 10,000 characters to a file and gives
// the model only a pointer to it, so a block is cut to this whatever
// budget is configured.
const MaxContext = 9000

// composeMax is the most budget the restore and the recall are composed
// within, so that their lowest parts give way rather than their tail: it
// leaves room for the escapes safeContext adds, and safeContext cuts
// what still goes over.
const composeMax = MaxContext - MaxContext/5

// safeContext prepares text drawn from the archive for Claude's context.
// The archive holds whatever tools and web pages wrote: control
// characters are shown as escapes (noise to the model, and live on a
// terminal that shows the hook's output), a tag that could close or open
// the <system-reminder> Claude Code wraps the text in is neutralised, and
// the text is cut to MaxContext.
func safeContext(s string) string {
	return clipContext(neutralTags(termsafe.String(s)))
}

// neutralTags replaces the "<" of every tag whose name has a "-", "_" or
// ":" in it (system-reminder, command-name, local-command-stdout,
// user-prompt-submit-hook, function_results…: the framing of a
// conversation) with "‹", so that archived text cannot pass for that
// framing. Plain HTML and generics (<div>, List<T>) are left as they are.
func neutralTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '<' && framingTag(s[i+1:]) {
			b.WriteString(s[last:i])
			b.WriteString("‹")
			last = i + 1
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// framingTag reports whether s, what follows a "<", starts a tag name
// (after an optional "/" and spaces) that holds a "-", "_" or ":" between
// letters or digits.
func framingTag(s string) bool {
	s = strings.TrimLeft(strings.TrimPrefix(strings.TrimLeft(s, " \t"), "/"), " \t")
	if s == "" || !isASCIILetter(s[0]) {
		return false
	}
	sep := false
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case isASCIILetter(c) || c >= '0' && c <= '9':
		case c == '-' || c == '_' || c == ':':
			if i+1 < len(s) && (isASCIILetter(s[i+1]) || s[i+1] >= '0' && s[i+1] <= '9') {
				sep = true
			}
		default:
			return sep
		}
	}
	return sep
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// clipContext cuts s to at most MaxContext bytes, at a line end when one
// is near, and says that the rest is in the archive.
func clipContext(s string) string {
	if len(s) <= MaxContext {
		return s
	}
	const note = "\n[… cut to fit Claude Code's inline limit; more: `carryover search \"<words>\"`]"
	cut := MaxContext - len(note)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if nl := strings.LastIndexByte(s[:cut], '\n'); nl >= cut-1000 {
		cut = nl
	}
	return strings.TrimRight(s[:cut], "\n") + note
}
