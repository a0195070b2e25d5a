package claudesettings

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// Values carryover inserts are built from these, so that key order is fixed
// and the text can be laid out to match the file around it.
type (
	object []field
	field  struct {
		key string
		val any // object, []any, inline, string, int, bool or raw
	}
	raw    string // JSON text copied verbatim (a scalar from another file)
	inline []any  // an array written on one line, whatever the layout
)

// style is how a file lays out its JSON, detected from its bytes.
type style struct {
	pretty bool   // one member per line; else everything on one line
	nl     string // "\n" or "\r\n"
	unit   string // one level of indentation
	colon  string // between a key and its value: ": " or ":"
}

// detectStyle guesses the layout of src (a parsed object, or nil for a new
// file: Claude Code itself writes two-space indented JSON).
func detectStyle(src []byte, root *node) style {
	s := style{pretty: true, nl: "\n", unit: "  ", colon: ": "}
	if root == nil {
		return s
	}
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		s.nl = "\r\n"
	}
	// A one-line object with members is minified; "{}" gets the default.
	s.pretty = len(root.members) == 0 || bytes.ContainsRune(src[root.start:root.end], '\n')
	s.unit = indentUnit(src)
	if c, ok := firstColon(src, root); ok {
		s.colon = c
	} else if !s.pretty {
		s.colon = ":"
	}
	return s
}

// indentUnit is a tab if the first indented line uses tabs, else the
// smallest indentation in spaces (defaulting to two).
func indentUnit(src []byte) string {
	best := 0
	for line := range bytes.SplitSeq(src, []byte("\n")) {
		lead := len(line) - len(bytes.TrimLeft(line, " \t"))
		if lead == 0 || lead == len(bytes.TrimRight(line, "\r")) {
			continue // not indented, or blank
		}
		if line[0] == '\t' {
			if best == 0 {
				return "\t"
			}
			continue
		}
		n := len(line) - len(bytes.TrimLeft(line, " "))
		if n > 0 && (best == 0 || n < best) {
			best = n
		}
	}
	if best == 0 || best > 8 {
		best = 2
	}
	return strings.Repeat(" ", best)
}

// firstColon returns the text between the first key in the file and its
// value, when that is ":" or ": ".
func firstColon(src []byte, n *node) (string, bool) {
	switch n.kind {
	case kindObject:
		if len(n.members) > 0 {
			m := n.members[0]
			between := src[m.keyEnd:m.val.start]
			after := between[bytes.IndexByte(between, ':')+1:]
			switch {
			case len(after) == 0:
				return ":", true
			case after[0] == ' ':
				return ": ", true
			}
			return firstColon(src, m.val)
		}
	case kindArray:
		for _, e := range n.elems {
			if c, ok := firstColon(src, e); ok {
				return c, true
			}
		}
	}
	return "", false
}

// format lays v out in style s; indent is the indentation of the line the
// value starts on, used for the lines after it when pretty.
func (s style) format(v any, indent string, pretty bool) string {
	var b strings.Builder
	s.write(&b, v, indent, pretty)
	return b.String()
}

func (s style) write(b *strings.Builder, v any, indent string, pretty bool) {
	inner := indent + s.unit
	sep := func(i int) {
		switch {
		case pretty:
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(s.nl + inner)
		case i > 0 && s.colon == ": ":
			b.WriteString(", ")
		case i > 0:
			b.WriteByte(',')
		}
	}
	closing := func(c byte, n int) {
		if pretty && n > 0 {
			b.WriteString(s.nl + indent)
		}
		b.WriteByte(c)
	}
	switch v := v.(type) {
	case object:
		b.WriteByte('{')
		for i, f := range v {
			sep(i)
			b.WriteString(quote(f.key) + s.colon)
			s.write(b, f.val, inner, pretty)
		}
		closing('}', len(v))
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			sep(i)
			s.write(b, e, inner, pretty)
		}
		closing(']', len(v))
	case inline:
		s.write(b, []any(v), indent, false)
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case string:
		b.WriteString(quote(v))
	case int:
		b.WriteString(strconv.Itoa(v))
	case raw:
		b.WriteString(string(v))
	}
}

// quote is JSON string syntax without encoding/json's HTML escaping, which
// would turn a command's "&&" into "\u0026\u0026".
func quote(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(buf.String(), "\n")
}
