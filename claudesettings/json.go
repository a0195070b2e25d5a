package claudesettings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The editor works on the original bytes: it parses them into a tree that
// records where every value, key and member sits, and changes the file by
// splicing text at those offsets. Nothing is ever re-marshalled, so every
// byte it does not mean to change stays as it was.

type kind uint8

const (
	kindObject kind = iota + 1
	kindArray
	kindString
	kindScalar // number, true, false, null
)

// node is one JSON value and its span src[start:end].
type node struct {
	kind       kind
	start, end int
	members    []member // kindObject
	elems      []*node  // kindArray
}

// member is one key/value pair of an object; it spans src[keyStart:val.end].
type member struct {
	key              string
	keyStart, keyEnd int
	val              *node
}

// last returns the value of the last member named key: the one JSON.parse,
// and so Claude Code, keeps when a key is repeated.
func (n *node) last(key string) (*node, int) {
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			return n.members[i].val, i
		}
	}
	return nil, -1
}

// itemStart and itemEnd are the span of the i-th member or element.
func (n *node) itemStart(i int) int {
	if n.kind == kindObject {
		return n.members[i].keyStart
	}
	return n.elems[i].start
}

func (n *node) itemEnd(i int) int {
	if n.kind == kindObject {
		return n.members[i].val.end
	}
	return n.elems[i].end
}

func (n *node) len() int {
	if n.kind == kindObject {
		return len(n.members)
	}
	return len(n.elems)
}

// str decodes a string node; ok is false for any other kind.
func (n *node) str(src []byte) (string, bool) {
	if n == nil || n.kind != kindString {
		return "", false
	}
	var s string
	if err := json.Unmarshal(src[n.start:n.end], &s); err != nil {
		return "", false
	}
	return s, true
}

// parseError is invalid input, located by line and column (1-based).
type parseError struct {
	line, col int
	msg       string
}

func (e *parseError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.line, e.col, e.msg)
}

func errorAt(src []byte, off int, format string, args ...any) *parseError {
	off = min(max(off, 0), len(src))
	line := 1 + bytes.Count(src[:off], []byte("\n"))
	col := off - (bytes.LastIndexByte(src[:off], '\n') + 1) + 1
	return &parseError{line: line, col: col, msg: fmt.Sprintf(format, args...)}
}

// parse validates src as strict JSON and returns its tree.
func parse(src []byte) (*node, error) {
	if !json.Valid(src) {
		var syn *json.SyntaxError
		if err := json.Unmarshal(src, new(any)); errors.As(err, &syn) {
			// Offset is just past the offending byte.
			return nil, errorAt(src, int(syn.Offset)-1, "%s", syn.Error())
		}
		return nil, errorAt(src, len(src), "invalid JSON")
	}
	p := &parser{src: src}
	p.ws()
	return p.value()
}

// parser walks input json.Valid has already accepted, so it only records
// structure and never has to report a syntax error.
type parser struct {
	src []byte
	pos int
}

func (p *parser) ws() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value() (*node, error) {
	n := &node{start: p.pos}
	switch c := p.src[p.pos]; c {
	case '{':
		n.kind = kindObject
		p.pos++
		p.ws()
		for p.src[p.pos] != '}' {
			keyStart := p.pos
			p.skipString()
			keyEnd := p.pos
			var key string
			if err := json.Unmarshal(p.src[keyStart:keyEnd], &key); err != nil {
				return nil, errorAt(p.src, keyStart, "bad key: %v", err)
			}
			p.ws()
			p.pos++ // ':'
			p.ws()
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			n.members = append(n.members, member{key: key, keyStart: keyStart, keyEnd: keyEnd, val: v})
			p.ws()
			if p.src[p.pos] == ',' {
				p.pos++
				p.ws()
			}
		}
		p.pos++
	case '[':
		n.kind = kindArray
		p.pos++
		p.ws()
		for p.src[p.pos] != ']' {
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, v)
			p.ws()
			if p.src[p.pos] == ',' {
				p.pos++
				p.ws()
			}
		}
		p.pos++
	case '"':
		n.kind = kindString
		p.skipString()
	default:
		n.kind = kindScalar
		for p.pos < len(p.src) && !strings.ContainsRune(" \t\r\n,]}", rune(p.src[p.pos])) {
			p.pos++
		}
	}
	n.end = p.pos
	return n, nil
}

func (p *parser) skipString() {
	p.pos++ // opening quote
	for p.src[p.pos] != '"' {
		if p.src[p.pos] == '\\' {
			p.pos++
		}
		p.pos++
	}
	p.pos++
}
