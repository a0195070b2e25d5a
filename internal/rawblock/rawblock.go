// Package rawblock packs a session's raw transcript lines
// (carryover.RawLine) into the zstd-compressed blocks both stores keep,
// and plans how a batch's lines join the blocks already stored.
//
// A block is a run of consecutive lines of one session. Its uncompressed
// form is a format byte, the number of lines, each line's size in the
// transcript and the difference between its offset and the previous
// line's end (varints: 0 but where lines of two copies of a transcript
// meet), then the lines' masked text, each followed by a newline: the JSON
// Lines of that stretch of the transcript. Blocks hold
// about TargetBytes of text: small blocks compress badly, so the last
// block of a session, while it is smaller, is rewritten with the lines of
// the next batch rather than followed by another small block.
package rawblock

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/carryover-dev/carryover"
)

// TargetBytes is how much text a block holds before the next one starts.
// Larger blocks compress better; a read of a few lines decompresses whole
// blocks, and the rewrite of a session's last block costs each hook up to
// this much compression.
const TargetBytes = 128 << 10

// maxDecoded bounds what one block may decompress to: a block holds at
// most TargetBytes and one line, and the ingest keeps lines of at most 16
// MiB. A damaged frame claiming more is refused rather than allocated.
const maxDecoded = 64 << 20

// format is the first byte of a block's uncompressed form.
const format = 1

// Block is a run of consecutive raw lines of a session, compressed.
type Block struct {
	ID          int64 // the store's row id; 0 for a block not stored yet
	FirstLine   int
	LastLine    int
	FirstOffset int64 // transcript offset of the first line
	EndOffset   int64 // transcript offset just past the last line
	TextBytes   int   // the lines' text with their newlines, uncompressed
	Data        []byte
}

// ErrCorrupt means a block's data does not decode to the lines it claims.
var ErrCorrupt = errors.New("raw block is damaged")

// Codec compresses and decompresses blocks. It is not safe for concurrent
// use; a store takes one from its Pool for each write or read.
type Codec struct {
	enc *zstd.Encoder
	dec *zstd.Decoder
	buf []byte
}

// Pool keeps codecs for reuse: making a codec's tables costs more (some
// 600 kB to clear, about a millisecond) than compressing what one hook
// appends. The zero Pool is ready to use.
type Pool struct{ p sync.Pool }

// Get returns a codec from the pool, or a new one.
func (p *Pool) Get() *Codec {
	if c, ok := p.p.Get().(*Codec); ok {
		return c
	}
	return &Codec{}
}

// Put returns a codec to the pool.
func (p *Pool) Put(c *Codec) { p.p.Put(c) }

func (c *Codec) encoder() (*zstd.Encoder, error) {
	if c.enc == nil {
		// The fastest level: it runs in a hook, on every line archived.
		// One goroutine, and a window about a block's size: a larger one
		// costs each block more memory to clear than it saves.
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
			zstd.WithWindowSize(2*TargetBytes), zstd.WithLowerEncoderMem(true))
		if err != nil {
			return nil, fmt.Errorf("raw block encoder: %w", err)
		}
		c.enc = enc
	}
	return c.enc, nil
}

func (c *Codec) decoder() (*zstd.Decoder, error) {
	if c.dec == nil {
		dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxMemory(maxDecoded))
		if err != nil {
			return nil, fmt.Errorf("raw block decoder: %w", err)
		}
		c.dec = dec
	}
	return c.dec, nil
}

// Encode compresses lines, which must be consecutive, into one block.
func (c *Codec) Encode(lines []carryover.RawLine) (Block, error) {
	if len(lines) == 0 {
		return Block{}, errors.New("raw block of no lines")
	}
	enc, err := c.encoder()
	if err != nil {
		return Block{}, err
	}
	b := Block{FirstLine: lines[0].Line, LastLine: lines[len(lines)-1].Line, FirstOffset: lines[0].Offset}
	buf := append(c.buf[:0], format)
	buf = binary.AppendUvarint(buf, uint64(len(lines)))
	end := b.FirstOffset
	for _, l := range lines {
		// Each line's offset is where the previous one ends, but for lines
		// joined from two copies of a transcript: the difference is kept.
		buf = binary.AppendUvarint(buf, uint64(l.Size))
		buf = binary.AppendVarint(buf, l.Offset-end)
		end = l.Offset + int64(l.Size)
	}
	head := len(buf)
	for _, l := range lines {
		buf = append(buf, l.Text...)
		buf = append(buf, '\n')
	}
	b.EndOffset, b.TextBytes = end, len(buf)-head
	b.Data = enc.EncodeAll(buf, make([]byte, 0, len(buf)/4))
	c.buf = buf
	if cap(c.buf) > 4*TargetBytes {
		c.buf = nil // a huge line: do not keep its buffer
	}
	return b, nil
}

// Decode returns the lines of a block. Their Text shares one buffer.
func (c *Codec) Decode(b Block) ([]carryover.RawLine, error) {
	dec, err := c.decoder()
	if err != nil {
		return nil, err
	}
	data, err := dec.DecodeAll(b.Data, nil)
	if err != nil {
		return nil, fmt.Errorf("lines %d-%d: %w: %w", b.FirstLine, b.LastLine, ErrCorrupt, err)
	}
	bad := func(why string) error {
		return fmt.Errorf("lines %d-%d: %w: %s", b.FirstLine, b.LastLine, ErrCorrupt, why)
	}
	if len(data) == 0 || data[0] != format {
		return nil, bad("unknown format")
	}
	data = data[1:]
	n, k := binary.Uvarint(data)
	if k <= 0 || n != uint64(b.LastLine-b.FirstLine+1) {
		return nil, bad("wrong line count")
	}
	data = data[k:]
	lines := make([]carryover.RawLine, n)
	off := b.FirstOffset
	for i := range lines {
		size, k := binary.Uvarint(data)
		if k <= 0 || size > 1<<40 {
			return nil, bad("bad line size")
		}
		data = data[k:]
		gap, k := binary.Varint(data)
		if k <= 0 {
			return nil, bad("bad line offset")
		}
		data = data[k:]
		off += gap
		lines[i] = carryover.RawLine{Line: b.FirstLine + i, Offset: off, Size: int(size)}
		off += int64(size)
	}
	for i := range lines {
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			return nil, bad("missing line")
		}
		lines[i].Text = data[:nl:nl]
		data = data[nl+1:]
	}
	if len(data) != 0 {
		return nil, bad("trailing bytes")
	}
	return lines, nil
}

// Pack compresses consecutive lines into blocks of about TargetBytes of
// text each (a longer line makes a block of its own).
func (c *Codec) Pack(lines []carryover.RawLine) ([]Block, error) {
	var blocks []Block
	for len(lines) > 0 {
		n, size := 0, 0
		for n < len(lines) && size < TargetBytes {
			size += len(lines[n].Text) + 1
			n++
		}
		b, err := c.Encode(lines[:n])
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, b)
		lines = lines[n:]
	}
	return blocks, nil
}

// Plan is how a batch's raw lines are stored: remove the blocks it names,
// then insert Blocks.
type Plan struct {
	Blocks []Block
	// DeleteFrom, when > 0, removes the stored blocks that start at that
	// line or later (a batch that replaces what follows).
	DeleteFrom int
	// DeleteID, when > 0, removes the stored block of that id: the tail
	// whose lines Blocks hold again.
	DeleteID int64
	// Lines is how many of the batch's lines Blocks hold.
	Lines int
}

// TailFrom is the line before which a batch's stored tail block lies: the
// block a store reads for Prepare is its last one starting before this
// line (0: the session's last block).
func TailFrom(lines []carryover.RawLine, replace bool) int {
	if !replace || len(lines) == 0 {
		return 0
	}
	return lines[0].Line
}

// Prepare plans storing lines (consecutive) after the session's stored
// blocks. tail is the stored block TailFrom names, with its data, or nil
// when there is none. Without replace, lines the store has (up to the
// tail's last) are left out; with it, every stored line from the first of
// lines on is replaced. A tail that ends right before the new lines and
// holds less than TargetBytes is rewritten with them, and a tail the
// replaced range cuts keeps only its earlier lines.
func (c *Codec) Prepare(lines []carryover.RawLine, replace bool, tail *Block) (Plan, error) {
	if !replace && tail != nil {
		i := 0
		for i < len(lines) && lines[i].Line <= tail.LastLine {
			i++
		}
		lines = lines[i:]
	}
	if len(lines) == 0 {
		return Plan{}, nil
	}
	p := Plan{Lines: len(lines)}
	from := lines[0].Line
	if replace {
		p.DeleteFrom = from
	}
	if tail != nil && (tail.LastLine >= from || tail.LastLine == from-1 && tail.TextBytes < TargetBytes) {
		old, err := c.Decode(*tail)
		if err != nil {
			return Plan{}, err
		}
		keep := old[:0]
		for _, l := range old {
			if l.Line < from {
				keep = append(keep, l)
			}
		}
		lines = append(keep, lines...)
		p.DeleteID = tail.ID
	}
	var err error
	p.Blocks, err = c.Pack(lines)
	return p, err
}

// Same reports whether two reads of a session's tail found the same
// block: a plan made on one still holds on the other.
func Same(a, b *Block) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.ID == b.ID && a.FirstLine == b.FirstLine && a.LastLine == b.LastLine && a.TextBytes == b.TextBytes
}

// Select keeps the lines numbered from to to (to <= 0: to the end).
func Select(lines []carryover.RawLine, from, to int) []carryover.RawLine {
	out := lines[:0]
	for _, l := range lines {
		if l.Line >= from && (to <= 0 || l.Line <= to) {
			out = append(out, l)
		}
	}
	return out
}

// Background runs plan in a goroutine when background is set (a batch
// with chunks to embed meanwhile), else at once, and returns a function
// that waits for its result: a store compresses a batch's raw lines before
// its write transaction, beside the embedding.
func Background[T any](background bool, plan func() (T, error)) func() (T, error) {
	if !background {
		v, err := plan()
		return func() (T, error) { return v, err }
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := plan()
		done <- result{v, err}
	}()
	return func() (T, error) {
		r := <-done
		return r.v, r.err
	}
}
