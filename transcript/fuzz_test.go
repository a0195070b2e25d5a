package transcript_test

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/carryover-dev/carryover/transcript"
)

// readEntries reads every complete entry of data from offset/line, with
// lines longer than maxLine skipped.
func readEntries(t *testing.T, data []byte, offset int64, line, maxLine int) ([]transcript.Entry, *transcript.Reader) {
	t.Helper()
	r := transcript.NewReader(bytes.NewReader(data), offset, line)
	r.SetMaxLine(maxLine)
	var es []transcript.Entry
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			return es, r
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		es = append(es, e)
	}
}

// FuzzReaderResume checks the property incremental ingest relies on: reading
// a transcript while it is being written (up to byte cut), then resuming at
// the reader's Offset and Line once the rest is there, yields exactly the
// entries (and skipped lines) of reading the finished file in one go. Each
// entry's Offset and Size must also point at its own line. Seeds are real
// transcript excerpts in testdata/fuzz/FuzzReaderResume.
func FuzzReaderResume(f *testing.F) {
	lines := `{"type":"user","uuid":"a","message":{"role":"user","content":"hi"}}
{"type":"assistant","uuid":"b","message":{"id":"m","content":[{"type":"text","text":"hello"}]}}

not json
{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":5}}
`
	f.Add([]byte(lines), 40, 1<<10)
	f.Add([]byte(lines), len(lines)-3, 64)
	f.Add([]byte(`{"type":"user"}`), 5, 100)
	f.Add([]byte("{\"type\":\"user\"}\r\n\xff\xfe\n{}"), 17, 8)
	f.Fuzz(func(t *testing.T, data []byte, cut, maxLine int) {
		if cut < 0 || cut > len(data) {
			cut = int(uint(cut) % uint(len(data)+1))
		}
		maxLine = 1 + int(uint(maxLine)%(64<<10))

		whole, wr := readEntries(t, data, 0, 0, maxLine)
		for i, e := range whole {
			if e.Offset < 0 || e.Size <= 0 || e.Offset+int64(e.Size) > int64(len(data)) {
				t.Fatalf("entry %d: offset %d size %d outside %d bytes", i, e.Offset, e.Size, len(data))
			}
			if i > 0 && (e.Line <= whole[i-1].Line || e.Offset < whole[i-1].Offset+int64(whole[i-1].Size)) {
				t.Fatalf("entry %d (line %d, offset %d) does not follow entry %d (line %d, offset %d)",
					i, e.Line, e.Offset, i-1, whole[i-1].Line, whole[i-1].Offset)
			}
			if _, err := transcript.Decode(bytes.TrimSpace(data[e.Offset : e.Offset+int64(e.Size)])); err != nil {
				t.Fatalf("entry %d: its own line does not decode: %v", i, err)
			}
		}
		if wr.Offset() > int64(len(data)) || wr.Line() < len(whole) {
			t.Fatalf("reader ended at offset %d line %d after %d entries of %d bytes", wr.Offset(), wr.Line(), len(whole), len(data))
		}

		head, hr := readEntries(t, data[:cut], 0, 0, maxLine)
		off, line := hr.Offset(), hr.Line()
		if off > int64(cut) {
			t.Fatalf("read past the written bytes: offset %d > %d", off, cut)
		}
		if off == int64(cut) && cut > 0 && cut < len(data) && data[cut-1] != '\n' {
			// A torn last line that already was a whole object: a writer
			// of JSON lines never continues one, so there is no promise.
			return
		}
		tail, tr := readEntries(t, data[off:], off, line, maxLine)
		got := append(head, tail...)
		if len(got) == 0 && len(whole) == 0 {
			return
		}
		if !reflect.DeepEqual(got, whole) {
			t.Fatalf("resuming at byte %d (line %d) gave %d entries, one pass %d:\n%+v\n%+v", off, line, len(got), len(whole), got, whole)
		}
		if hr.Skipped+tr.Skipped != wr.Skipped || tr.Offset() != wr.Offset() || tr.Line() != wr.Line() {
			t.Fatalf("resumed reader: skipped %d+%d offset %d line %d; one pass: skipped %d offset %d line %d",
				hr.Skipped, tr.Skipped, tr.Offset(), tr.Line(), wr.Skipped, wr.Offset(), wr.Line())
		}
	})
}
