package transcript

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxLine is the longest line decoded; longer lines (base64 images,
// giant tool outputs) are skipped whole without being held in memory.
const DefaultMaxLine = 16 << 20

// Reader streams entries from a transcript, starting at a byte offset.
// A last line without a newline is only consumed when it is a complete JSON
// object, so a line still being written is read again by the next ingest.
type Reader struct {
	br      *bufio.Reader
	offset  int64
	line    int
	maxLine int
	buf     []byte

	// Skipped counts lines that were malformed or too long.
	Skipped int
}

// NewReader returns a Reader over r, whose first byte is at offset in the
// file and follows line number line (0 at the start of a file).
func NewReader(r io.Reader, offset int64, line int) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 256<<10), offset: offset, line: line, maxLine: DefaultMaxLine}
}

// SetMaxLine changes the longest line decoded.
func (r *Reader) SetMaxLine(n int) { r.maxLine = n }

// Offset is the byte offset just past the last line consumed.
func (r *Reader) Offset() int64 { return r.offset }

// Line is the number of the last line consumed.
func (r *Reader) Line() int { return r.line }

// Next returns the next decodable entry, skipping blank, malformed and
// oversized lines. It returns io.EOF at the end of the complete lines.
func (r *Reader) Next() (Entry, error) {
	for {
		raw, size, complete, err := r.readLine()
		if err != nil {
			return Entry{}, err
		}
		if !complete {
			// A torn last line: leave it for the next read, unless it is
			// already a whole object (a file that simply lacks a final newline).
			if raw == nil || !looksComplete(raw) {
				return Entry{}, io.EOF
			}
		}
		start := r.offset
		r.offset += int64(size)
		r.line++
		if raw == nil { // oversized
			r.Skipped++
			continue
		}
		trimmed := bytes.TrimSpace(raw)
		if len(trimmed) == 0 {
			continue
		}
		e, derr := Decode(trimmed)
		if derr != nil {
			r.Skipped++
			continue
		}
		e.Line = r.line
		e.Offset = start
		e.Size = size
		return e, nil
	}
}

// readLine returns the next line without its newline, its size in bytes
// including the newline, and whether it ended with a newline. An oversized
// line is consumed and returned as nil with its size.
func (r *Reader) readLine() (line []byte, size int, complete bool, err error) {
	r.buf = r.buf[:0]
	over := false
	for {
		frag, ferr := r.br.ReadSlice('\n')
		if ferr == nil && size == 0 && len(frag) <= r.maxLine+1 {
			// The whole line is in the read buffer: no copy. It stays
			// valid until the next read, after the line is decoded.
			return frag[:len(frag)-1], len(frag), true, nil
		}
		size += len(frag)
		if !over {
			if len(r.buf)+len(frag) > r.maxLine+1 {
				over = true
				r.buf = r.buf[:0]
			} else {
				r.buf = append(r.buf, frag...)
			}
		}
		switch {
		case ferr == nil:
			if over {
				return nil, size, true, nil
			}
			return r.buf[:len(r.buf)-1], size, true, nil
		case errors.Is(ferr, bufio.ErrBufferFull):
			continue
		case errors.Is(ferr, io.EOF):
			if size == 0 {
				return nil, 0, false, io.EOF
			}
			if over {
				// Oversized and torn: not consumed; it is read again later.
				return nil, 0, false, io.EOF
			}
			return r.buf, size, false, nil
		default:
			return nil, 0, false, fmt.Errorf("read transcript: %w", ferr)
		}
	}
}

func looksComplete(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 1 && b[0] == '{' && b[len(b)-1] == '}' && validJSON(b)
}

// fingerprintSpan is how many bytes at the start of the file and before the
// resume offset identify a transcript's content.
const fingerprintSpan = 1024

// Fingerprint identifies the content of a file up to offset: a hash of its
// first bytes and of the bytes just before offset. A transcript that was
// rewritten or truncated gets a different fingerprint at the old offset.
func Fingerprint(f io.ReaderAt, offset int64) (string, error) {
	h := sha256.New()
	head := make([]byte, min(int64(fingerprintSpan), offset))
	if _, err := f.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("fingerprint: %w", err)
	}
	h.Write(head)
	tailStart := max(0, offset-fingerprintSpan)
	tail := make([]byte, offset-tailStart)
	if _, err := f.ReadAt(tail, tailStart); err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("fingerprint: %w", err)
	}
	h.Write(tail)
	return hex.EncodeToString(h.Sum(nil)[:12]), nil
}

// SplitLines splits data into lines that keep their newline; a last line
// without one gets it. The lines share data's memory.
func SplitLines(data []byte) [][]byte {
	var lines [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			lines = append(lines, append(data[:len(data):len(data)], '\n'))
			break
		}
		lines = append(lines, data[:i+1:i+1])
		data = data[i+1:]
	}
	return lines
}
