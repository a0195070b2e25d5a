// Package progress draws a one-line progress bar (count, rate, ETA) on a
// terminal, and nothing at all when its writer is not one: pipes, files and
// hooks stay clean.
//
//	p := progress.New(os.Stderr, int64(len(files)), "ingest")
//	for ... { ...; p.Add(1) }
//	p.Done()
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/term"
)

// redrawEvery bounds how often the line is redrawn: a terminal that gets a
// line per item slows the work it reports on.
const redrawEvery = 100 * time.Millisecond

const barWidth = 24

// Bar is a progress bar. Its methods are safe for concurrent use; on a
// writer that is not a terminal they do nothing.
type Bar struct {
	mu     sync.Mutex
	w      io.Writer
	active bool
	label  string
	total  int64
	n      int64
	start  time.Time
	last   time.Time // last redraw
	drawn  bool      // a bar line is on screen
	drawnN int64     // the count it shows
	bytes  bool      // the units are bytes: shown as KiB, MiB, GiB
	now    func() time.Time
}

// New returns a bar for total units of work (0 when unknown) that draws on
// w when w is a terminal.
func New(w io.Writer, total int64, label string) *Bar {
	return newBar(w, total, label, IsTerminal(w), time.Now)
}

func newBar(w io.Writer, total int64, label string, active bool, now func() time.Time) *Bar {
	return &Bar{w: w, active: active, label: label, total: total, start: now(), now: now}
}

// IsTerminal reports whether v (a writer or a reader) is a terminal: an
// *os.File the terminal ioctl answers for, with TERM not "dumb".
func IsTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && f != nil && term.IsTerminal(f.Fd()) && os.Getenv("TERM") != "dumb"
}

// Add counts n more units done and redraws the line when it is due.
func (p *Bar) Add(n int64) {
	if p == nil || !p.active {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n += n
	if t := p.now(); t.Sub(p.last) >= redrawEvery || p.n == p.total {
		p.last = t
		p.draw(t)
	}
}

// SetTotal changes the total, for work whose size is learned on the way.
func (p *Bar) SetTotal(total int64) {
	if p == nil || !p.active {
		return
	}
	p.mu.Lock()
	p.total = total
	p.mu.Unlock()
}

// Reach moves the count to done of total, for work that reports where it
// is rather than how much more it did. The count never goes back.
func (p *Bar) Reach(done, total int64) {
	if p == nil || !p.active {
		return
	}
	p.SetTotal(total)
	p.mu.Lock()
	more := done - p.n
	p.mu.Unlock()
	if more > 0 {
		p.Add(more)
	}
}

// Done draws the final state and ends the line.
func (p *Bar) Done() {
	if p == nil || !p.active {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.drawn || p.drawnN != p.n {
		p.draw(p.now())
	}
	fmt.Fprintln(p.w)
	p.drawn = false
	p.active = false
}

// Reader returns r counting the bytes read from it as units done; the
// bar then shows sizes (12.5 MiB/40.0 MiB) rather than counts.
func (p *Bar) Reader(r io.Reader) io.Reader {
	if p != nil {
		p.mu.Lock()
		p.bytes = true
		p.mu.Unlock()
	}
	return counting{p: p, r: r}
}

type counting struct {
	p *Bar
	r io.Reader
}

func (c counting) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.p.Add(int64(n))
	return n, err
}

// Writer returns w wrapped so that what is written to it appears above the
// bar rather than through it (w is returned as is when the bar is not drawn).
func (p *Bar) Writer(w io.Writer) io.Writer {
	if p == nil || !p.active {
		return w
	}
	return above{p: p, w: w}
}

type above struct {
	p *Bar
	w io.Writer
}

func (a above) Write(b []byte) (int, error) {
	a.p.mu.Lock()
	defer a.p.mu.Unlock()
	if a.p.drawn {
		// Carriage return and erase to the end of the line.
		fmt.Fprint(a.p.w, "\r\x1b[K")
		a.p.drawn = false
		a.p.last = time.Time{} // redraw at the next Add
	}
	return a.w.Write(b)
}

// draw writes the line; p.mu is held.
func (p *Bar) draw(t time.Time) {
	fmt.Fprint(p.w, "\r\x1b[K"+p.line(t))
	p.drawn, p.drawnN = true, p.n
}

// line renders "label [=====>     ] 120/400  30%  85/s  ETA 3s".
func (p *Bar) line(t time.Time) string {
	var b strings.Builder
	b.WriteString(p.label)
	elapsed := t.Sub(p.start)
	rate := 0.0
	if elapsed > 0 {
		rate = float64(p.n) / elapsed.Seconds()
	}
	if p.total > 0 {
		frac := min(float64(p.n)/float64(p.total), 1)
		fill := int(frac * barWidth)
		bar := strings.Repeat("=", fill)
		if fill < barWidth {
			bar += ">" + strings.Repeat(" ", barWidth-fill-1)
		}
		fmt.Fprintf(&b, " [%s] %s/%s %3.0f%%", bar, p.count(p.n), p.count(p.total), frac*100)
	} else {
		fmt.Fprintf(&b, " %s", p.count(p.n))
	}
	if rate > 0 {
		r := formatRate(rate)
		if p.bytes {
			r = formatBytes(int64(rate))
		}
		fmt.Fprintf(&b, "  %s/s", r)
		if p.total > p.n {
			eta := time.Duration(float64(p.total-p.n) / rate * float64(time.Second))
			fmt.Fprintf(&b, "  ETA %s", eta.Round(time.Second))
		}
	}
	return b.String()
}

// count is n as the bar shows it: a number, or a size.
func (p *Bar) count(n int64) string {
	if p.bytes {
		return formatBytes(n)
	}
	return fmt.Sprint(n)
}

// formatBytes is a size in binary units: 512 B, 3.4 KiB, 12.5 MiB.
func formatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, units := float64(n)/unit, "KMGTPE"
	i := 0
	for v >= unit && i < len(units)-1 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, units[i])
}

func formatRate(r float64) string {
	if r >= 100 {
		return fmt.Sprintf("%.0f", r)
	}
	return fmt.Sprintf("%.1f", r)
}
