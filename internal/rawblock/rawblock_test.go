package rawblock_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/rawblock"
)

// lines makes n consecutive lines from line from on, each size bytes of
// text, laid out one after the other from offset off.
func lines(tag string, from, n, size int, off int64) []carryover.RawLine {
	out := make([]carryover.RawLine, n)
	for i := range out {
		text := fmt.Sprintf(`{"tag":%q,"line":%d,"pad":"`, tag, from+i)
		text += strings.Repeat("x", max(0, size-len(text)-2)) + `"}`
		out[i] = carryover.RawLine{Line: from + i, Offset: off, Size: len(text) + 1, Text: []byte(text)}
		off += int64(len(text) + 1)
	}
	return out
}

func same(t *testing.T, what string, got, want []carryover.RawLine) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d lines, want %d", what, len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Line != w.Line || g.Offset != w.Offset || g.Size != w.Size || !bytes.Equal(g.Text, w.Text) {
			t.Fatalf("%s: line %d is {%d %d %d %.40q}, want {%d %d %d %.40q}", what, i, g.Line, g.Offset, g.Size, g.Text, w.Line, w.Offset, w.Size, w.Text)
		}
	}
}

// unpack decodes blocks back into their lines.
func unpack(t *testing.T, c *rawblock.Codec, blocks []rawblock.Block) []carryover.RawLine {
	t.Helper()
	var out []carryover.RawLine
	for i, b := range blocks {
		ls, err := c.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 && b.FirstLine != blocks[i-1].LastLine+1 {
			t.Fatalf("block %d starts at line %d after a block ending at %d", i, b.FirstLine, blocks[i-1].LastLine)
		}
		out = append(out, ls...)
	}
	return out
}

func TestRoundTrip(t *testing.T) {
	var c rawblock.Codec
	in := lines("a", 5, 3, 200, 1000)
	in = append(in,
		carryover.RawLine{Line: 8, Offset: in[2].Offset + int64(in[2].Size), Size: 1},                                    // blank
		carryover.RawLine{Line: 9, Offset: in[2].Offset + int64(in[2].Size) + 1, Size: 9, Text: []byte("\x00\xff\xfe{")}, // damaged
		// The next lines come from another copy of the transcript, whose
		// lines lay elsewhere.
		carryover.RawLine{Line: 10, Offset: 50, Size: 3, Text: []byte("{}")},
		carryover.RawLine{Line: 11, Offset: 0, Size: 7, Text: []byte(`{"a":1}`)},
	)
	b, err := c.Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	if b.FirstLine != 5 || b.LastLine != 11 || b.FirstOffset != 1000 || b.EndOffset != 7 {
		t.Errorf("block lines %d-%d, offsets %d-%d", b.FirstLine, b.LastLine, b.FirstOffset, b.EndOffset)
	}
	out, err := c.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "decoded", out, in)
}

func TestPackSizes(t *testing.T) {
	var c rawblock.Codec
	in := lines("p", 1, 2000, 500, 0)
	in = append(in[:1000], append(lines("huge", 1001, 1, 3*rawblock.TargetBytes, in[1000].Offset), lines("p", 1002, 999, 500, 0)...)...)
	for i := 1001; i < len(in); i++ {
		in[i].Offset = in[i-1].Offset + int64(in[i-1].Size)
	}
	blocks, err := c.Pack(in)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for i, b := range blocks {
		if i < len(blocks)-1 && b.TextBytes < rawblock.TargetBytes {
			t.Errorf("block %d (lines %d-%d) holds %d bytes: not the last, yet smaller than a block", i, b.FirstLine, b.LastLine, b.TextBytes)
		}
		if b.FirstLine <= 1001 && 1001 <= b.LastLine && b.LastLine != 1001 {
			t.Errorf("the huge line shares block %d-%d with later lines", b.FirstLine, b.LastLine)
		}
		if i > 0 && b.FirstOffset != blocks[i-1].EndOffset {
			t.Errorf("block %d starts at offset %d, the previous one ends at %d", i, b.FirstOffset, blocks[i-1].EndOffset)
		}
		if b.TextBytes > rawblock.TargetBytes+3*rawblock.TargetBytes {
			t.Errorf("block %d holds %d bytes", i, b.TextBytes)
		}
		total += len(b.Data)
	}
	same(t, "packed", unpack(t, &c, blocks), in)
	t.Logf("%d lines, %d blocks, %d bytes compressed", len(in), len(blocks), total)
}

func TestDecodeDamaged(t *testing.T) {
	var c rawblock.Codec
	b, err := c.Encode(lines("d", 1, 50, 300, 0))
	if err != nil {
		t.Fatal(err)
	}
	flipped := b
	flipped.Data = append([]byte(nil), b.Data...)
	flipped.Data[len(flipped.Data)/2] ^= 0x55
	wrongCount := b
	wrongCount.LastLine++
	for name, bad := range map[string]rawblock.Block{"flipped byte": flipped, "wrong line count": wrongCount,
		"not zstd": {FirstLine: 1, LastLine: 1, Data: []byte("plain text")}} {
		if _, err := c.Decode(bad); !errors.Is(err, rawblock.ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
}

// store is a session's stored blocks, for Prepare.
type store struct {
	blocks []rawblock.Block
	nextID int64
}

// tail returns what a store's query for TailFrom returns.
func (s *store) tail(from int) *rawblock.Block {
	var t *rawblock.Block
	for i := range s.blocks {
		if from == 0 || s.blocks[i].FirstLine < from {
			if t == nil || s.blocks[i].FirstLine > t.FirstLine {
				t = &s.blocks[i]
			}
		}
	}
	return t
}

func (s *store) apply(t *testing.T, c *rawblock.Codec, ls []carryover.RawLine, replace bool) rawblock.Plan {
	t.Helper()
	p, err := c.Prepare(ls, replace, s.tail(rawblock.TailFrom(ls, replace)))
	if err != nil {
		t.Fatal(err)
	}
	kept := s.blocks[:0]
	for _, b := range s.blocks {
		if b.ID == p.DeleteID || p.DeleteFrom > 0 && b.FirstLine >= p.DeleteFrom {
			continue
		}
		kept = append(kept, b)
	}
	s.blocks = kept
	for _, b := range p.Blocks {
		s.nextID++
		b.ID = s.nextID
		s.blocks = append(s.blocks, b)
	}
	return p
}

func TestPrepare(t *testing.T) {
	var c rawblock.Codec
	var s store
	all := lines("a", 1, 3000, 300, 0)
	// Hooks append a few lines at a time: the small tail is rewritten
	// with them, so the blocks stay full.
	for i := 0; i < 1500; i += 20 {
		p := s.apply(t, &c, all[i:i+20], false)
		if p.Lines != 20 {
			t.Fatalf("plan for lines %d-%d holds %d of them", i+1, i+20, p.Lines)
		}
	}
	same(t, "appended", unpack(t, &c, s.blocks), all[:1500])
	for i, b := range s.blocks[:len(s.blocks)-1] {
		if b.TextBytes < rawblock.TargetBytes {
			t.Errorf("block %d holds %d bytes", i, b.TextBytes)
		}
	}
	// Lines the store has are left out without replace...
	if p := s.apply(t, &c, all[1400:1500], false); p.Lines != 0 || len(p.Blocks) != 0 || p.DeleteID != 0 {
		t.Errorf("a plan for stored lines: %+v", p)
	}
	p := s.apply(t, &c, all[1490:1600], false)
	if p.Lines != 100 {
		t.Errorf("plan for lines 1491-1600 holds %d new lines, want 100", p.Lines)
	}
	same(t, "overlapping copy", unpack(t, &c, s.blocks), all[:1600])
	// ...and replace what follows with it: a rewritten transcript read
	// again from line 1.
	fresh := lines("b", 1, 700, 300, 0)
	s.apply(t, &c, fresh[:400], true)
	same(t, "restart", unpack(t, &c, s.blocks), fresh[:400])
	s.apply(t, &c, fresh[400:], false)
	// A replace from inside a large block keeps that block's earlier lines.
	again := lines("c", 300, 50, 300, fresh[299].Offset)
	s.apply(t, &c, again, true)
	same(t, "replace from line 300", unpack(t, &c, s.blocks), append(append([]carryover.RawLine(nil), fresh[:299]...), again...))
	// A gap (a session archived before the raw archive) is kept as one.
	var g store
	g.apply(t, &c, all[100:120], false)
	g.apply(t, &c, all[200:220], false)
	got := decodeAll(t, &c, g.blocks)
	same(t, "gap", got, append(append([]carryover.RawLine(nil), all[100:120]...), all[200:220]...))
}

// decodeAll decodes blocks that may leave gaps between them.
func decodeAll(t *testing.T, c *rawblock.Codec, blocks []rawblock.Block) []carryover.RawLine {
	t.Helper()
	var out []carryover.RawLine
	for _, b := range blocks {
		ls, err := c.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ls...)
	}
	return out
}

func TestSelect(t *testing.T) {
	in := lines("s", 10, 10, 50, 0)
	if got := rawblock.Select(append([]carryover.RawLine(nil), in...), 12, 14); len(got) != 3 || got[0].Line != 12 || got[2].Line != 14 {
		t.Errorf("Select 12-14: %d lines", len(got))
	}
	if got := rawblock.Select(append([]carryover.RawLine(nil), in...), 17, 0); len(got) != 3 || got[2].Line != 19 {
		t.Errorf("Select 17-: %d lines", len(got))
	}
}

// BenchmarkPack compresses the largest real session's lines into blocks,
// as a cold ingest does (3.4 MB). It needs the shared data folder beside
// the repository.
func BenchmarkPack(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "data", "transcripts", "spotter", "fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl"))
	if err != nil {
		b.Skipf("no shared transcripts beside the repository: %v", err)
	}
	var in []carryover.RawLine
	off := 0
	for n := 1; off < len(data); n++ {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			break
		}
		in = append(in, carryover.RawLine{Line: n, Offset: int64(off), Size: i + 1, Text: data[off : off+i]})
		off += i + 1
	}
	b.SetBytes(int64(len(data)))
	var c rawblock.Codec
	var size int
	for b.Loop() {
		blocks, err := c.Pack(in)
		if err != nil {
			b.Fatal(err)
		}
		size = 0
		for _, bl := range blocks {
			size += len(bl.Data)
		}
	}
	b.ReportMetric(float64(len(data))/float64(size), "ratio")
}

// TestBackground: the result (and error) of the plan comes back whether it
// ran at once or in a goroutine, and at once means before Background
// returns.
func TestBackground(t *testing.T) {
	errPlan := errors.New("plan failed")
	for _, bg := range []bool{false, true} {
		ran := false
		wait := rawblock.Background(bg, func() (int, error) { ran = true; return 7, errPlan })
		if !bg && !ran {
			t.Error("not run at once without background")
		}
		if v, err := wait(); v != 7 || err != errPlan || !ran {
			t.Errorf("background %v: got %d, %v (ran %v)", bg, v, err, ran)
		}
	}
}
