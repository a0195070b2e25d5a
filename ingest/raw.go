package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/redact"
	"github.com/carryover-dev/carryover/transcript"
)

// rawReadAhead is how many confirmed bytes wake the raw reader: it reads
// and masks in stretches rather than a line at a time.
const rawReadAhead = 64 << 10

// rawReader reads the transcript's lines for the raw archive and masks
// them, in a goroutine that follows the entry reader: it reads only whole
// lines the entry reader has consumed (so both see the same lines, torn
// last line and all), and works while the entries are decoded and
// chunked, which is most of an ingest's time. A hook then pays for the raw
// archive little more than the compression, which the store does while it
// embeds.
type rawReader struct {
	f       io.ReaderAt
	red     *redact.Redactor
	maxLine int
	// stream masks the lines in order, so that a private key a line
	// leaves open is masked in the lines that continue it, as in the
	// entries. The goroutine's own.
	stream *redact.Stream

	target atomic.Int64 // bytes before it are whole lines the entry reader consumed
	woke   int64        // the target when the reader was last woken (entry reader's side)

	wake   chan struct{}
	flush  chan int64
	result chan rawResult
	quit   chan struct{}

	// The goroutine's own.
	pos   int64 // the next line's offset
	line  int   // the last line's number
	slab  []byte
	br    *bufio.Reader
	out   rawResult
	fails error
}

// rawResult is a batch's raw lines, masked, and the secrets masked in
// each line that held some, by line number.
type rawResult struct {
	lines []carryover.RawLine
	found map[int]map[string]int
	carry redact.Carry // the stream's state after the last line
	err   error
}

// newRawReader starts reading f's lines from offset, whose line number
// follows line, masking them from carry on.
func newRawReader(f io.ReaderAt, offset int64, line int, red *redact.Redactor, carry redact.Carry) *rawReader {
	r := &rawReader{f: f, red: red, stream: red.Stream(carry), maxLine: transcript.DefaultMaxLine, pos: offset, line: line, woke: offset,
		wake: make(chan struct{}, 1), flush: make(chan int64), result: make(chan rawResult, 1),
		quit: make(chan struct{})}
	r.target.Store(offset)
	go r.run()
	return r
}

// advance tells the reader that the bytes before off are whole lines the
// entry reader consumed.
func (r *rawReader) advance(off int64) {
	r.target.Store(off)
	if off-r.woke >= rawReadAhead {
		r.woke = off
		select {
		case r.wake <- struct{}{}:
		default:
		}
	}
}

// take returns the lines before end (the end of the entry reader's batch)
// not returned yet.
func (r *rawReader) take(ctx context.Context, end int64) (rawResult, error) {
	select {
	case r.flush <- end:
	case <-ctx.Done():
		return rawResult{}, ctx.Err()
	}
	select {
	case res := <-r.result:
		return res, res.err
	case <-ctx.Done():
		return rawResult{}, ctx.Err()
	}
}

// stop ends the goroutine. It does not wait: a hook past its deadline
// returns at once, and the goroutine ends after the line it is masking.
func (r *rawReader) stop() {
	close(r.quit)
}

func (r *rawReader) run() {
	for {
		select {
		case <-r.quit:
			return
		case <-r.wake:
			r.readTo(r.target.Load())
		case end := <-r.flush:
			r.readTo(end)
			res := r.out
			res.carry = r.stream.Carry()
			if res.err == nil {
				res.err = r.fails
			}
			r.out = rawResult{}
			select {
			case r.result <- res:
			case <-r.quit:
				return
			}
		}
	}
}

// rawSlab is the size of the buffers the raw reader reads lines into: a
// line's text is a slice of one, not a copy of its own (three copies and
// an allocation per line cost a hook more than reading the file).
const rawSlab = 1 << 20

// rawRegionMax is the most the raw reader reads at once: a longer stretch
// (a huge line) is read a line at a time, and a line longer than the
// entry reader takes is not held in memory.
const rawRegionMax = 4 << 20

// readTo reads, masks and keeps the lines before end.
func (r *rawReader) readTo(end int64) {
	if r.fails != nil || end <= r.pos {
		return
	}
	if n := end - r.pos; n <= rawRegionMax {
		if int64(cap(r.slab)-len(r.slab)) < n {
			r.slab = make([]byte, 0, max(rawSlab, n))
		}
		region := r.slab[len(r.slab) : len(r.slab)+int(n)]
		if _, err := r.f.ReadAt(region, r.pos); err != nil {
			// The file shrank under the reader, or failed: the entry
			// reader read these bytes, so the batch cannot have its lines.
			r.fails = fmt.Errorf("raw lines at offset %d: %w", r.pos, err)
			return
		}
		// The slab's earlier lines stay as they are: the new ones follow.
		r.slab = r.slab[:len(r.slab)+int(n)]
		for len(region) > 0 {
			select {
			case <-r.quit:
				r.fails = errors.New("raw lines: stopped")
				return
			default:
			}
			text, size := region[:len(region):len(region)], len(region) // the last piece is a whole line
			if nl := bytes.IndexByte(region, '\n'); nl >= 0 {
				text, size = region[:nl:nl], nl+1
			}
			if len(text) > r.maxLine {
				text = nil // the entry reader skips it too
			}
			r.keep(text, size, false)
			region = region[size:]
		}
		return
	}
	if r.br == nil {
		r.br = bufio.NewReaderSize(nil, 64<<10) // only for a huge line
	}
	r.br.Reset(io.NewSectionReader(r.f, r.pos, end-r.pos))
	var buf []byte
	for r.pos < end {
		select {
		case <-r.quit:
			r.fails = errors.New("raw lines: stopped")
			return
		default:
		}
		var size int
		var err error
		buf, size, err = readRawLine(r.br, buf[:0], r.maxLine)
		if err != nil || size == 0 {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			r.fails = fmt.Errorf("raw lines at offset %d: %w", r.pos, err)
			return
		}
		r.keep(buf, size, true)
	}
}

// keep masks the next line, of size bytes in the transcript, and adds it
// to the batch; text is copied when clone is set (a reused buffer).
func (r *rawReader) keep(text []byte, size int, clone bool) {
	r.line++
	var counts map[string]int
	// Most lines hold no secret: look without copying the line (megabytes
	// of garbage per transcript, which a hook pays for in page faults).
	// The line's strings are looked at decoded, as RedactJSON masks them:
	// its text can hide a secret behind an escape, in a field no entry
	// reads. But while a key an earlier line left open is carried, every
	// line is read for it.
	if len(text) > 0 && (!r.stream.Carry().IsZero() || r.red.ContainsJSON(text)) {
		var masked []byte
		masked, counts = r.stream.RedactJSON(text)
		clone = clone && len(masked) > 0 && &masked[0] == &text[0]
		text = masked
	}
	l := carryover.RawLine{Line: r.line, Offset: r.pos, Size: size}
	if len(text) > 0 {
		l.Text = text
		if clone {
			l.Text = bytes.Clone(text)
		}
	}
	r.out.lines = append(r.out.lines, l)
	if counts != nil {
		if r.out.found == nil {
			r.out.found = map[int]map[string]int{}
		}
		r.out.found[r.line] = counts
	}
	r.pos += int64(size)
}

// readRawLine reads one line into buf without its newline and returns its
// size with the newline. The reader's input ends where a line does, so a
// last piece without a newline is a whole line (one Claude Code has not
// ended yet, which the entry reader consumed as complete). A line longer
// than maxLine is consumed and returned empty: the entry reader skips it
// too, and the raw archive does not hold it in memory.
func readRawLine(br *bufio.Reader, buf []byte, maxLine int) ([]byte, int, error) {
	size := 0
	over := false
	for {
		frag, err := br.ReadSlice('\n')
		size += len(frag)
		if !over {
			if len(buf)+len(frag) > maxLine+1 {
				over, buf = true, buf[:0]
			} else {
				buf = append(buf, frag...)
			}
		}
		switch {
		case err == nil:
			return bytes.TrimSuffix(buf, []byte("\n")), size, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return buf, size, nil
		default:
			return nil, 0, fmt.Errorf("read transcript: %w", err)
		}
	}
}

// maskDecoded masks the secrets in every string of a JSON line, decoded.
// RedactJSON looks for secrets in the line's text first, where JSON
// escapes can hide one a decoded string shows (a key at the start of a
// line of a tool's output follows "\n", not a newline); the entries' own
// masking saw it, so the raw line is masked string by string.
func maskDecoded(red *redact.Redactor, line []byte) ([]byte, map[string]int) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return red.RedactJSON(line)
	}
	counts := map[string]int{}
	v = maskValue(red, v, counts)
	if len(counts) == 0 {
		return line, nil
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return red.RedactJSON(line)
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n")), counts
}

func maskValue(red *redact.Redactor, v any, counts map[string]int) any {
	switch x := v.(type) {
	case string:
		out, c := red.Redact(x)
		for k, n := range c {
			counts[k] += n
		}
		return out
	case []any:
		for i := range x {
			x[i] = maskValue(red, x[i], counts)
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			k2, c := red.Redact(k)
			for kind, n := range c {
				counts[kind] += n
			}
			out[k2] = maskValue(red, e, counts)
		}
		return out
	}
	return v
}

// rawBatch completes a batch's raw lines: a line whose entry had a secret
// masked that the raw line's own masking did not find is masked string by
// string (see maskDecoded). It returns the secrets masked in lines whose
// entry had none (fields the entries do not decode), to count with the
// entries'.
func rawBatch(red *redact.Redactor, res rawResult, entryFound map[int]bool) map[string]int {
	var extra map[string]int
	if len(res.lines) == 0 {
		return nil
	}
	first := res.lines[0].Line
	for line := range entryFound {
		i := line - first
		if i < 0 || i >= len(res.lines) || res.found[line] != nil {
			continue
		}
		text, _ := maskDecoded(red, res.lines[i].Text)
		// The entries may carry a key further than the raw lines do
		// (lines they skip hold texts that count against the carry):
		// key-shaped text at the start of a string is masked too.
		text, _ = red.ContinuingKey().RedactJSON(text)
		if len(text) > 0 {
			res.lines[i].Text = bytes.Clone(text)
		}
	}
	for line, counts := range res.found {
		if !entryFound[line] {
			redact.AddCounts(&extra, counts)
		}
	}
	return extra
}
