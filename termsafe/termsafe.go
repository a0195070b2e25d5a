// Package termsafe makes archived text safe to print on a terminal. The
// archive holds whatever tools and web pages wrote, and a terminal
// executes escape sequences in what it prints: OSC 52 writes the user's
// clipboard, others retitle the window, move the cursor or hide text. So
// every piece of archived text the CLI prints goes through String, which
// shows control characters escaped instead of sending them.
package termsafe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// String returns s with every control character but newline and tab shown
// as an escape (ESC as \e, other C0 and C1 controls and DEL as \xNN or
// \u00NN), Unicode bidirectional overrides and isolates as \u{NNNN} (they
// reorder what is shown), and invalid UTF-8 bytes as \xNN. Printable text,
// newlines and tabs are kept.
func String(s string) string {
	if safe(s, true) {
		return s
	}
	return escape(s, true)
}

// Line is String for text shown on one line: newlines and tabs are shown
// as \n and \t too.
func Line(s string) string {
	if safe(s, false) {
		return s
	}
	return escape(s, false)
}

// safe reports whether s needs no escaping (the common case, kept cheap).
func safe(s string, multiline bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 {
			if multiline && (c == '\n' || c == '\t') {
				continue
			}
			return false
		}
		if c >= 0x7f {
			return false // DEL, or non-ASCII: checked rune by rune
		}
	}
	return true
}

func escape(s string, multiline bool) string {
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' || r == '\t':
			if multiline {
				b.WriteRune(r)
			} else if r == '\n' {
				b.WriteString(`\n`)
			} else {
				b.WriteString(`\t`)
			}
		case r == 0x1b:
			b.WriteString(`\e`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r < 0xa0:
			fmt.Fprintf(&b, `\u%04x`, r)
		case bidi(r):
			fmt.Fprintf(&b, `\u{%04x}`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// bidi reports the Unicode bidirectional embeddings, overrides and
// isolates, which make a terminal show text in another order than it is.
func bidi(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// JSON escapes, in JSON text that encoding/json wrote, what it leaves raw
// and a terminal may act on: DEL, the C1 controls and the bidirectional
// controls (encoding/json escapes the C0 controls already). The result is
// the same JSON value.
func JSON(data []byte) []byte {
	if safe(string(data), true) {
		return data
	}
	var b strings.Builder
	s := string(data)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x7f || r >= 0x80 && r < 0xa0 || bidi(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return []byte(b.String())
}

// JSONLines writes JSON lines to w through JSON, a whole line at a time, so
// that no character is split between writes. Flush writes what is left of
// a last line without its newline.
type JSONLines struct {
	w   io.Writer
	buf []byte
}

// NewJSONLines returns a JSONLines writing to w.
func NewJSONLines(w io.Writer) *JSONLines { return &JSONLines{w: w} }

func (t *JSONLines) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if i := bytes.LastIndexByte(t.buf, '\n'); i >= 0 {
		if _, err := t.w.Write(JSON(t.buf[:i+1])); err != nil {
			return 0, err
		}
		t.buf = append(t.buf[:0], t.buf[i+1:]...)
	}
	return len(p), nil
}

// Flush writes the rest of a last line.
func (t *JSONLines) Flush() error {
	if len(t.buf) == 0 {
		return nil
	}
	_, err := t.w.Write(JSON(t.buf))
	t.buf = t.buf[:0]
	return err
}

// RawLine escapes a raw transcript line for a terminal: valid JSON stays
// valid (its C0 controls are escapes already; JSON escapes the others),
// anything else is shown with every control character escaped.
func RawLine(line []byte) []byte {
	if json.Valid(line) && !slices.ContainsFunc(line, func(c byte) bool { return c < 0x20 }) {
		return JSON(line)
	}
	return []byte(Line(string(line)))
}
