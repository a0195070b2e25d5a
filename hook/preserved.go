package hook

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"

	"github.com/carryover-dev/carryover/transcript"
)

// preservedTail is how much of a transcript's end is read for the messages
// a compaction kept: they are the last ones before its boundary.
// boundaryTail is read first: the boundary and the summary were just
// written, and an older build's boundary (no preserved messages) costs no
// more.
const (
	preservedTail = 4 << 20
	boundaryTail  = 64 << 10
)

// preservedCap bounds the text taken from them.
const preservedCap = 256 << 10

// preservedText returns the text of the messages the transcript's last
// compaction kept verbatim (compactMetadata.preservedMessages, newer
// Claude Code builds): the model still sees them, so the restore treats
// them like the summary and spends nothing on what they hold. "" when the
// compaction kept none, or on any problem (the restore then behaves as
// for older builds).
func preservedText(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	tail := func(n int64) ([]byte, int64, bool) {
		start := max(fi.Size()-n, 0)
		buf := make([]byte, fi.Size()-start)
		if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
			return nil, 0, false
		}
		return buf, start, true
	}
	buf, start, ok := tail(boundaryTail)
	if !ok {
		return ""
	}
	// The boundary and the summary were just written: a boundary further
	// back is an earlier compaction's, and this one kept nothing.
	i := bytes.LastIndex(buf, []byte(`"compact_boundary"`))
	if i < 0 {
		return ""
	}
	line := buf[bytes.LastIndexByte(buf[:i], '\n')+1:]
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	if !bytes.Contains(line, []byte("preservedMessages")) {
		return "" // an older build's boundary
	}
	if start > 0 && len(buf) < preservedTail {
		if buf, start, ok = tail(preservedTail); !ok {
			return ""
		}
	}
	if start > 0 { // the first line is likely torn
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf = buf[i+1:]
		}
	}
	lines := bytes.Split(buf, []byte{'\n'})
	boundary := -1
	for i := len(lines) - 1; i >= 0; i-- {
		if bytes.Contains(lines[i], []byte(`"compact_boundary"`)) {
			boundary = i
			break
		}
	}
	if boundary < 0 || !bytes.Contains(lines[boundary], []byte("preservedMessages")) {
		return ""
	}
	var meta struct {
		CompactMetadata struct {
			PreservedMessages struct {
				UUIDs    []string `json:"uuids"`
				AllUUIDs []string `json:"allUuids"`
			} `json:"preservedMessages"`
		} `json:"compactMetadata"`
	}
	if json.Unmarshal(lines[boundary], &meta) != nil {
		return ""
	}
	pm := meta.CompactMetadata.PreservedMessages
	kept := map[string]bool{}
	for _, u := range append(pm.AllUUIDs, pm.UUIDs...) {
		kept[u] = true
	}
	if len(kept) == 0 {
		return ""
	}
	var b strings.Builder
	for _, l := range lines[:boundary] {
		if !bytes.Contains(l, []byte(`"uuid"`)) {
			continue
		}
		e, err := transcript.Decode(l)
		if err != nil || !kept[e.UUID] {
			continue
		}
		for _, blk := range e.Blocks {
			b.WriteString(blk.Text)
			b.WriteByte('\n')
			var in any
			if len(blk.Input) > 0 && json.Unmarshal(blk.Input, &in) == nil {
				writeStrings(&b, in)
			}
		}
		if b.Len() > preservedCap {
			break
		}
	}
	return b.String()
}

// writeStrings writes the strings of a decoded JSON value, one a line.
func writeStrings(b *strings.Builder, v any) {
	switch v := v.(type) {
	case string:
		b.WriteString(v)
		b.WriteByte('\n')
	case []any:
		for _, x := range v {
			writeStrings(b, x)
		}
	case map[string]any:
		for _, x := range v {
			writeStrings(b, x)
		}
	}
}
