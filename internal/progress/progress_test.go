package progress

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// clock is a fake time source advanced by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestBarDrawsCountRateAndETA(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	var out bytes.Buffer
	p := newBar(&out, 400, "ingest", true, c.now)
	c.t = c.t.Add(2 * time.Second)
	p.Add(100)
	got := out.String()
	for _, want := range []string{"\r\x1b[K", "ingest [======>", "100/400", " 25%", "50.0/s", "ETA 6s"} {
		if !strings.Contains(got, want) {
			t.Errorf("line %q lacks %q", got, want)
		}
	}
	// Within the redraw interval nothing is drawn.
	out.Reset()
	c.t = c.t.Add(10 * time.Millisecond)
	p.Add(1)
	if out.Len() != 0 {
		t.Errorf("redrew within %v: %q", redrawEvery, out.String())
	}
	c.t = c.t.Add(time.Second)
	p.Add(299)
	p.Done()
	got = out.String()
	if !strings.Contains(got, "[========================] 400/400 100%") || strings.Contains(got, "ETA") {
		t.Errorf("final line %q", got)
	}
	if n := strings.Count(got, "400/400"); n != 1 {
		t.Errorf("final state drawn %d times: %q", n, got)
	}
	if !strings.HasSuffix(got, "\n") {
		t.Errorf("Done did not end the line: %q", got)
	}
	// After Done the bar is quiet.
	out.Reset()
	p.Add(5)
	p.Done()
	if out.Len() != 0 {
		t.Errorf("drew after Done: %q", out.String())
	}
}

func TestBarUnknownTotal(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	var out bytes.Buffer
	p := newBar(&out, 0, "export", true, c.now)
	c.t = c.t.Add(time.Second)
	p.Add(250)
	if got := strings.TrimPrefix(out.String(), "\r\x1b[K"); got != "export 250  250/s" {
		t.Errorf("line %q", got)
	}
}

func TestWriterClearsTheBarFirst(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	var out bytes.Buffer
	p := newBar(&out, 10, "x", true, c.now)
	c.t = c.t.Add(time.Second)
	p.Add(1)
	w := p.Writer(&out)
	out.Reset()
	w.Write([]byte("a line\n"))
	if got := out.String(); got != "\r\x1b[Ka line\n" {
		t.Errorf("got %q", got)
	}
	// The next Add redraws at once.
	out.Reset()
	c.t = c.t.Add(time.Millisecond)
	p.Add(1)
	if !strings.Contains(out.String(), "2/10") {
		t.Errorf("no redraw after a write: %q", out.String())
	}
}

func TestQuietWhenNotATerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if IsTerminal(w) {
		t.Fatal("a pipe counts as a terminal")
	}
	var buf bytes.Buffer
	for _, p := range []*Bar{New(w, 3, "pipe"), New(&buf, 3, "buffer")} {
		p.Add(3)
		if p.Writer(&buf) != &buf {
			t.Error("Writer wrapped the writer of a quiet bar")
		}
		p.Done()
	}
	w.Close()
	got, _ := io.ReadAll(r)
	if len(got) != 0 || buf.Len() != 0 {
		t.Errorf("wrote %q to a pipe and %q to a buffer", got, buf.String())
	}
}

func TestBarReach(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	var out bytes.Buffer
	p := newBar(&out, 0, "sync", true, c.now)
	c.t = c.t.Add(time.Second)
	p.Reach(3, 10)
	if got := out.String(); !strings.Contains(got, "3/10") {
		t.Errorf("line %q lacks 3/10", got)
	}
	// A report of less done than shown does not move the count back.
	c.t = c.t.Add(time.Second)
	p.Reach(2, 12)
	c.t = c.t.Add(time.Second)
	p.Reach(12, 12)
	p.Done()
	if got := out.String(); !strings.Contains(got, "12/12 100%") {
		t.Errorf("final line: %q", got)
	}
}

func TestBarReader(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	var out bytes.Buffer
	p := newBar(&out, 10, "import", true, c.now)
	c.t = c.t.Add(time.Second)
	data, err := io.ReadAll(p.Reader(strings.NewReader("0123456789")))
	if err != nil || string(data) != "0123456789" {
		t.Fatalf("read %q, %v", data, err)
	}
	if got := out.String(); !strings.Contains(got, "10 B/10 B 100%") {
		t.Errorf("line %q lacks 10 B/10 B 100%%", got)
	}

	// Sizes, not raw byte counts: 3 MiB of 12 read in a second.
	out.Reset()
	c.t = time.Unix(2000, 0)
	p = newBar(&out, 12<<20, "import", true, c.now)
	c.t = c.t.Add(time.Second)
	if _, err := io.Copy(io.Discard, io.LimitReader(p.Reader(strings.NewReader(strings.Repeat("x", 12<<20))), 3<<20)); err != nil {
		t.Fatal(err)
	}
	p.Done()
	if got := out.String(); !strings.Contains(got, "3.0 MiB/12.0 MiB  25%  3.0 MiB/s  ETA 3s") {
		t.Errorf("line %q lacks 3.0 MiB/12.0 MiB  25%%  3.0 MiB/s  ETA 3s", got)
	}
}
