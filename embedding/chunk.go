package embedding

import (
	"strings"

	"github.com/carryover-dev/carryover"
)

// maxChunkBytes bounds the text of one chunk that is embedded: a pasted log
// costs embedding time in proportion, and its first part says what it is.
const maxChunkBytes = 16 << 10

// structuredRepeat is how many times ChunkText repeats a chunk's files,
// commands and errors (their weight in the full-text rank).
const structuredRepeat = 3

// ChunkText is the text of a chunk that its vector represents, the same for
// every store so that they rank alike: the turn's prompt gives a sub-turn
// window its subject, and the files, commands and errors come
// structuredRepeat times (raising their words' term frequency) because, as
// the full-text field weights say, a word there names what the chunk is
// about where one in the prose may only mention it.
func ChunkText(c carryover.Chunk) string {
	var b strings.Builder
	b.Grow(min(chunkTextSize(c), 2*maxChunkBytes)) // a hint: a long piece may go past maxChunkBytes
	add := func(x string) {
		if x == "" || b.Len() >= maxChunkBytes {
			return
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(x)
	}
	for _, l := range [][]string{c.Files, c.Commands, c.Errors} {
		for _, x := range l {
			for range structuredRepeat {
				add(x)
			}
		}
	}
	add(c.Prompt)
	add(c.Text)
	s := b.String()
	if len(s) > maxChunkBytes {
		s = strings.ToValidUTF8(s[:maxChunkBytes], "")
	}
	return s
}

// chunkTextSize is the length of ChunkText before it is cut.
func chunkTextSize(c carryover.Chunk) int {
	n := len(c.Prompt) + len(c.Text) + 2
	for _, l := range [][]string{c.Files, c.Commands, c.Errors} {
		for _, x := range l {
			n += structuredRepeat * (len(x) + 1)
		}
	}
	return n
}
