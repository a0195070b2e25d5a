package transcript

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/carryover-dev/carryover/internal/jsonesc"
)

// decodeFast decodes a line in one pass over its bytes, validating all of
// them as encoding/json does, and returns ok false for anything it does
// not reproduce exactly (invalid JSON, a field of an unexpected JSON type,
// a field given twice or with a non-ASCII key, compaction metadata, very
// deep nesting): decodeStd then gives the answer, so both always agree.
// encoding/json validates a line, then decodes it, then decodes message,
// content and each tool result again from raw copies: some six passes over
// the bulk of a transcript, whose tool outputs make most of its bytes.
func decodeFast(line []byte) (Entry, bool) {
	s := scanner{data: line}
	var e Entry
	s.ws()
	if !s.peek('{') {
		return Entry{}, false
	}
	var (
		seen       uint32
		timestamp  string
		operation  string // a queue-operation's
		content    span   // top-level content, read for a few types
		message    *wireMessageFast
		data       *string // progress data.type
		attachment *struct {
			typ     string
			content span
		}
	)
	ok := s.object(func(key []byte) bool {
		f, known := topField(key)
		if !known {
			return s.skip()
		}
		if seen&(1<<f) != 0 {
			return false
		}
		seen |= 1 << f
		switch f {
		case fType:
			return s.str(&e.Type)
		case fSubtype:
			return s.str(&e.Subtype)
		case fUUID:
			return s.str(&e.UUID)
		case fParentUUID:
			return s.str(&e.Parent)
		case fSessionID:
			return s.str(&e.SessionID)
		case fAgentID:
			return s.str(&e.AgentID)
		case fTimestamp:
			return s.str(&timestamp)
		case fCwd:
			return s.str(&e.Cwd)
		case fVersion:
			return s.str(&e.Version)
		case fGitBranch:
			return s.str(&e.GitBranch)
		case fSummary:
			return s.str(&e.Content)
		case fOperation:
			return s.str(&operation)
		case fIsSidechain:
			return s.boolean(&e.Sidechain)
		case fIsMeta:
			return s.boolean(&e.Meta)
		case fIsCompactSummary:
			return s.boolean(&e.CompactSummary)
		case fTranscriptOnly:
			return s.boolean(&e.TranscriptOnly)
		case fToolUseResult:
			e.ToolUseResult = s.raw()
			return e.ToolUseResult != nil
		case fContent:
			content = s.span()
			return content.ok()
		case fMessage:
			if s.null() {
				return true
			}
			message = &wireMessageFast{}
			return s.message(message)
		case fData:
			if s.null() {
				return true
			}
			data = new(string)
			var got uint32
			return s.object(func(key []byte) bool {
				if string(key) == "type" {
					return once(&got, 1) && s.str(data)
				}
				return !foldsTo(key, "type") && s.skip()
			})
		case fAttachment:
			if s.null() {
				return true
			}
			attachment = &struct {
				typ     string
				content span
			}{}
			var got uint32
			return s.object(func(key []byte) bool {
				switch string(key) {
				case "type":
					return once(&got, 1) && s.str(&attachment.typ)
				case "content":
					attachment.content = s.span()
					return once(&got, 2) && attachment.content.ok()
				}
				return !foldsTo(key, "type", "content") && s.skip()
			})
		}
		return false // compactMetadata: rare, left to encoding/json
	})
	s.ws()
	if !ok || s.pos != len(s.data) {
		return Entry{}, false
	}

	if timestamp != "" {
		if t, err := time.Parse(time.RFC3339Nano, timestamp); err == nil {
			e.Time = t
		}
	}
	summary := e.Content
	e.Content = ""
	switch e.Type {
	case "user", "assistant":
		if message != nil {
			if e.Type == "assistant" {
				e.MessageID = message.id
			}
			e.Blocks = message.blocks
		}
	case "system":
		e.Content = s.rawString(content)
		if e.Subtype == "compact_boundary" {
			e.Compact = &CompactMeta{}
		}
	case "progress":
		if data != nil {
			e.Subtype = *data
		}
	case "attachment":
		if attachment != nil {
			e.Subtype = attachment.typ
			e.Content = s.flatten(attachment.content)
		}
	case "summary":
		e.Content = summary
	case "queue-operation":
		e.Content = s.rawString(content)
		if e.Subtype == "" {
			e.Subtype = operation
		}
	}
	return e, true
}

// Top-level fields decodeFast reads, as bits of a seen set.
const (
	fType = iota
	fSubtype
	fUUID
	fParentUUID
	fSessionID
	fAgentID
	fTimestamp
	fCwd
	fVersion
	fGitBranch
	fSummary
	fIsSidechain
	fIsMeta
	fIsCompactSummary
	fTranscriptOnly
	fToolUseResult
	fContent
	fMessage
	fData
	fAttachment
	fCompactMetadata
	fOperation
)

// topNames are the wire struct's JSON names, by field.
var topNames = [...]string{
	fType: "type", fSubtype: "subtype", fUUID: "uuid", fParentUUID: "parentUuid", fSessionID: "sessionId",
	fAgentID: "agentId", fTimestamp: "timestamp", fCwd: "cwd", fVersion: "version", fGitBranch: "gitBranch",
	fSummary: "summary", fIsSidechain: "isSidechain", fIsMeta: "isMeta", fIsCompactSummary: "isCompactSummary",
	fTranscriptOnly: "isVisibleInTranscriptOnly", fToolUseResult: "toolUseResult", fContent: "content",
	fMessage: "message", fData: "data", fAttachment: "attachment", fCompactMetadata: "compactMetadata",
	fOperation: "operation",
}

// topField returns the field a top-level key names. encoding/json also
// matches names case-insensitively: a key that would match a field only
// that way is reported as compactMetadata, which decodeFast leaves to
// encoding/json.
func topField(key []byte) (int, bool) {
	switch string(key) {
	case "type":
		return fType, true
	case "subtype":
		return fSubtype, true
	case "uuid":
		return fUUID, true
	case "parentUuid":
		return fParentUUID, true
	case "sessionId":
		return fSessionID, true
	case "agentId":
		return fAgentID, true
	case "timestamp":
		return fTimestamp, true
	case "cwd":
		return fCwd, true
	case "version":
		return fVersion, true
	case "gitBranch":
		return fGitBranch, true
	case "summary":
		return fSummary, true
	case "isSidechain":
		return fIsSidechain, true
	case "isMeta":
		return fIsMeta, true
	case "isCompactSummary":
		return fIsCompactSummary, true
	case "isVisibleInTranscriptOnly":
		return fTranscriptOnly, true
	case "toolUseResult":
		return fToolUseResult, true
	case "content":
		return fContent, true
	case "message":
		return fMessage, true
	case "data":
		return fData, true
	case "attachment":
		return fAttachment, true
	case "compactMetadata":
		return fCompactMetadata, true
	case "operation":
		return fOperation, true
	}
	if foldsTo(key, topNames[:]...) {
		return fCompactMetadata, true // refused: left to encoding/json
	}
	return 0, false
}

// foldsTo reports whether key could be matched to one of names by
// encoding/json's case-insensitive matching. A key with non-ASCII bytes
// counts as matching: Unicode folding maps a few non-ASCII letters to
// ASCII ones (the Kelvin sign to k).
func foldsTo(key []byte, names ...string) bool {
	for _, c := range key {
		if c >= utf8.RuneSelf {
			return true
		}
	}
	for _, n := range names {
		if len(n) == len(key) && strings.EqualFold(n, string(key)) {
			return true
		}
	}
	return false
}

// once sets bit in *seen and reports whether it was clear.
func once(seen *uint32, bit uint32) bool {
	if *seen&bit != 0 {
		return false
	}
	*seen |= bit
	return true
}

// wireMessageFast is what decodeFast keeps of a message.
type wireMessageFast struct {
	id     string
	blocks []Block
}

// span is a value's byte range in the line; end 0 means absent or invalid.
type span struct{ start, end int }

func (sp span) ok() bool { return sp.end > 0 }

// scanner reads JSON from data, validating as it goes. Its methods expect
// the value at pos (after whitespace) and return false on invalid JSON or
// on a shape decodeFast leaves to encoding/json.
type scanner struct {
	data  []byte
	pos   int
	depth int
}

// maxDepth bounds nesting; deeper lines are left to encoding/json, which
// has its own limit.
const maxDepth = 1000

func (s *scanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// peek skips whitespace and reports whether the next byte is c.
func (s *scanner) peek(c byte) bool {
	s.ws()
	return s.pos < len(s.data) && s.data[s.pos] == c
}

// null consumes a null literal if one is next.
func (s *scanner) null() bool {
	if s.peek('n') && bytes.HasPrefix(s.data[s.pos:], []byte("null")) {
		s.pos += 4
		return true
	}
	return false
}

// object reads an object, calling member for each key with pos at its
// value; member must consume the value. Keys are unescaped.
func (s *scanner) object(member func(key []byte) bool) bool {
	if !s.peek('{') {
		return false
	}
	s.pos++
	s.depth++
	if s.depth > maxDepth {
		return false
	}
	if s.peek('}') {
		s.pos++
		s.depth--
		return true
	}
	for {
		if !s.peek('"') {
			return false
		}
		key, ok := s.key()
		if !ok || !s.peek(':') {
			return false
		}
		s.pos++
		s.ws()
		if !member(key) {
			return false
		}
		if !s.peek(',') {
			break
		}
		s.pos++
	}
	if !s.peek('}') {
		return false
	}
	s.pos++
	s.depth--
	return true
}

// array reads an array, calling elem with pos at each element, which it
// must consume.
func (s *scanner) array(elem func() bool) bool {
	if !s.peek('[') {
		return false
	}
	s.pos++
	s.depth++
	if s.depth > maxDepth {
		return false
	}
	if s.peek(']') {
		s.pos++
		s.depth--
		return true
	}
	for {
		s.ws()
		if !elem() {
			return false
		}
		if !s.peek(',') {
			break
		}
		s.pos++
	}
	if !s.peek(']') {
		return false
	}
	s.pos++
	s.depth--
	return true
}

// skip validates and consumes any value.
func (s *scanner) skip() bool {
	s.ws()
	if s.pos >= len(s.data) {
		return false
	}
	switch c := s.data[s.pos]; {
	case c == '{':
		return s.object(func([]byte) bool { return s.skip() })
	case c == '[':
		return s.array(s.skip)
	case c == '"':
		_, _, ok := s.stringEnd()
		return ok
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	}
	return false
}

func (s *scanner) literal(lit string) bool {
	if !bytes.HasPrefix(s.data[s.pos:], []byte(lit)) {
		return false
	}
	s.pos += len(lit)
	return true
}

// number consumes a number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() bool {
	d := s.data
	i := s.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return false
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return false
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	s.pos = i
	return true
}

// stringEnd consumes a string at pos and returns the index just past its
// closing quote and whether it holds escapes.
func (s *scanner) stringEnd() (end int, escaped, ok bool) {
	d := s.data
	i := s.pos + 1
	for {
		// Eight bytes at a time: most of a transcript is the inside of
		// strings. The lowest byte specials flags is the first special one.
		if i+8 <= len(d) {
			m := specials(binary.LittleEndian.Uint64(d[i:]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) / 8
		} else if i >= len(d) {
			return 0, false, false
		}
		switch c := d[i]; {
		case c == '"':
			s.pos = i + 1
			return i + 1, escaped, true
		case c == '\\':
			escaped = true
			if i+1 >= len(d) {
				return 0, false, false
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(d) || !isHex(d[i+2]) || !isHex(d[i+3]) || !isHex(d[i+4]) || !isHex(d[i+5]) {
					return 0, false, false
				}
				i += 6
			default:
				return 0, false, false
			}
		case c < 0x20: // a control character
			return 0, false, false
		default: // a plain byte of the last few
			i++
		}
	}
}

// specials flags (with its high bit) each byte of x that is a quote, a
// backslash or a control character (below 0x20). The flag of the lowest
// such byte is exact; a byte above it may be flagged wrongly (a borrow).
func specials(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote := x ^ ('"' * ones)
	backslash := x ^ ('\\' * ones)
	return ((quote-ones)&^quote | (backslash-ones)&^backslash | (x-0x20*ones)&^x) & highs
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// key reads an object key, unescaped (aliasing data when it has no
// escapes).
func (s *scanner) key() ([]byte, bool) {
	start := s.pos
	end, escaped, ok := s.stringEnd()
	if !ok {
		return nil, false
	}
	if !escaped {
		return s.data[start+1 : end-1], true
	}
	return unquote(s.data[start+1 : end-1]), true
}

// str reads a string value into *dst; null leaves *dst alone, as
// encoding/json does. Another type is refused.
func (s *scanner) str(dst *string) bool {
	if s.null() {
		return true
	}
	if !s.peek('"') {
		return false
	}
	start := s.pos
	end, escaped, ok := s.stringEnd()
	if !ok {
		return false
	}
	*dst = stringOf(s.data[start+1:end-1], escaped)
	return true
}

func stringOf(b []byte, escaped bool) string {
	if !escaped {
		return string(b)
	}
	return string(unquote(b))
}

// boolean reads true or false into *dst; null leaves it alone.
func (s *scanner) boolean(dst *bool) bool {
	switch {
	case s.null():
		return true
	case s.peek('t') && s.literal("true"):
		*dst = true
		return true
	case s.peek('f') && s.literal("false"):
		*dst = false
		return true
	}
	return false
}

// span consumes a value and returns where it is.
func (s *scanner) span() span {
	s.ws()
	start := s.pos
	if !s.skip() {
		return span{}
	}
	return span{start, s.pos}
}

// raw consumes a value and returns a copy of its bytes, as a
// json.RawMessage field gets them; nil when invalid.
func (s *scanner) raw() json.RawMessage {
	sp := s.span()
	if !sp.ok() {
		return nil
	}
	return bytes.Clone(s.data[sp.start:sp.end])
}

// message reads a message object: its id and its content as blocks.
func (s *scanner) message(m *wireMessageFast) bool {
	var got uint32
	return s.object(func(key []byte) bool {
		switch string(key) {
		case "id":
			return once(&got, 1) && s.str(&m.id)
		case "role":
			var role string
			return once(&got, 2) && s.str(&role)
		case "content":
			if !once(&got, 4) {
				return false
			}
			switch {
			case s.peek('"'):
				var text string
				if !s.str(&text) {
					return false
				}
				m.blocks = []Block{{Type: "text", Text: text}}
				return true
			case s.peek('['):
				m.blocks = []Block{}
				return s.array(func() bool {
					b, ok := s.block()
					m.blocks = append(m.blocks, b)
					return ok
				})
			}
			return false // null and other types: left to encoding/json
		}
		return !foldsTo(key, "id", "role", "content") && s.skip()
	})
}

// block reads one content block.
func (s *scanner) block() (Block, bool) {
	var b Block
	var got uint32
	var text, thinking string
	var content span
	flattened := false
	ok := s.object(func(key []byte) bool {
		switch string(key) {
		case "type":
			return once(&got, 1) && s.str(&b.Type)
		case "text":
			return once(&got, 2) && s.str(&text)
		case "thinking":
			return once(&got, 4) && s.str(&thinking)
		case "id":
			return once(&got, 8) && s.str(&b.ID)
		case "name":
			return once(&got, 16) && s.str(&b.Name)
		case "input":
			b.Input = s.raw()
			return once(&got, 32) && b.Input != nil
		case "tool_use_id":
			return once(&got, 64) && s.str(&b.ToolUseID)
		case "content":
			if !once(&got, 128) {
				return false
			}
			if b.Type == "tool_result" {
				// The usual order: read the text once, in passing.
				var ok bool
				b.Text, ok = s.flattenNext()
				flattened = true
				return ok
			}
			content = s.span()
			return content.ok()
		case "is_error":
			return once(&got, 256) && s.boolean(&b.IsError)
		}
		return !foldsTo(key, "type", "text", "thinking", "id", "name", "input", "tool_use_id", "content", "is_error") && s.skip()
	})
	if !ok {
		return Block{}, false
	}
	switch b.Type {
	case "text":
		b.Text = text
	case "thinking":
		b.Text = thinking
	case "tool_result":
		if !flattened {
			b.Text = s.flatten(content)
		}
	}
	return b, true
}

// flatten renders the value at sp as flattenText does; "" when absent.
func (s *scanner) flatten(sp span) string {
	if !sp.ok() {
		return ""
	}
	sub := scanner{data: s.data[:sp.end], pos: sp.start}
	text, _ := sub.flattenNext()
	return text
}

// flattenNext consumes the value at pos and renders it as flattenText
// does: a string, or the text of a list's strings and {"type":"text"}
// parts joined by newlines; "" for anything else.
func (s *scanner) flattenNext() (string, bool) {
	switch {
	case s.peek('"'):
		var text string
		return text, s.str(&text)
	case s.peek('['):
		var out []string
		ok := s.array(func() bool {
			if s.peek('"') {
				out = append(out, "")
				return s.str(&out[len(out)-1])
			}
			if !s.peek('{') {
				return s.skip() // numbers, literals, arrays: not text
			}
			// Decoded as encoding/json decodes into {Type, Text string}:
			// any spelling of the names, the last value winning, null
			// changing nothing, and another type dropping the part.
			var typ, text string
			bad := false
			ok := s.object(func(key []byte) bool {
				var dst *string
				switch {
				case len(key) == 4 && strings.EqualFold(string(key), "type"):
					dst = &typ
				case len(key) == 4 && strings.EqualFold(string(key), "text"):
					dst = &text
				default:
					return s.skip()
				}
				if s.null() {
					return true
				}
				if !s.peek('"') {
					bad = true
					return s.skip()
				}
				return s.str(dst)
			})
			if ok && !bad && typ == "text" {
				out = append(out, text)
			}
			return ok
		})
		return strings.Join(out, "\n"), ok
	}
	return "", s.skip()
}

// rawString renders the value at sp as rawString does: the string, or "".
func (s *scanner) rawString(sp span) string {
	if !sp.ok() || s.data[sp.start] != '"' {
		return ""
	}
	sub := scanner{data: s.data[:sp.end], pos: sp.start}
	var text string
	sub.str(&text)
	return text
}

// unquote decodes the escapes of a validated string's contents as
// encoding/json does: a \u escape of a lone surrogate becomes U+FFFD.
func unquote(s []byte) []byte {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			j := i + 1
			for j < len(s) && s[j] != '\\' {
				j++
			}
			b = append(b, s[i:j]...)
			i = j
			continue
		}
		var n int
		b, n = jsonesc.Append(b, s[i:])
		i += n
	}
	return b
}
